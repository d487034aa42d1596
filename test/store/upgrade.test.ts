// Upgrades (docs/operating.md#backups-and-upgrades): for every schema a
// release may have left (after each migration in turn), a store at that
// schema, filled with rows in every table and a value in every column it
// has, is opened by this release: every migration after it runs, every row
// keeps every value, and the store's own functions read the data. On SQLite,
// and on PostgreSQL when TEST_DATABASE_URL is set.
//
// A new migration needs an entry in FILLS: the rows its schema makes
// possible, and how this release reads them back.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, sql } from 'kysely';
import { openStore, StoreError, type OpenStoreOptions, type OpenedStore } from '../../src/store';
import { openSqliteDialect } from '../../src/store/connection/sqlite';
import { createPostgresDialect, preparePostgresSchema } from '../../src/store/connection/postgres';
import { migrateUpTo } from '../../src/store/migrations/migrate';
import type { StoreDialect } from '../../src/store/migrations';
import { MIGRATION_NAMES, testDatabaseUrl, wantedStores } from '../support/stores';

type Value = string | number | Buffer | null;
type Row = Record<string, Value>;

interface Fill {
  /** Rows written on the schema as it stood right after this migration (raw SQL: the store's code is newer). */
  fill(insert: (table: string, row: Row) => Promise<void>): Promise<void>;
  /** How this release reads them, once upgraded. */
  check(store: OpenedStore): Promise<void>;
}

const T0 = '2026-03-01T08:00:00.000Z';
const LATER = '2026-03-01T09:00:00.000Z';
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** A refused SendNotificationType (migration 0015's table). */
const REFUSED_PUSH: Row = {
  id: 'v15-refused-push',
  created_at: T0,
  operation: 'SendNotificationType',
  channel: 'push',
  reason: 'no_token',
  student_id: 'v1-student',
  school_key: 'https://v1.school.example',
  type: 'absence',
  phone: null,
  phone_suffix: null,
};

/** A disabled administrator (migration 0008's table). */
const V8_ADMIN: Row = {
  name: 'v8-admin',
  password_hash: '$2b$10$' + 'a'.repeat(53),
  role: 'admin',
  disabled: 1,
  created_at: T0,
  updated_at: LATER,
};

const FILLS: Readonly<Record<string, Fill>> = {
  '0001_initial': {
    async fill(insert) {
      await insert('schools', { key: 'https://v1.school.example', base_url: 'https://v1.school.example', name: 'V1' });
      await insert('devices', { id: 'v1-dev', push_token: 'v1-token', platform: 'android', updated_at: T0 });
      await insert('students', {
        id: 'v1-student',
        school_key: 'https://v1.school.example',
        full_name: 'سلمى الأولى',
        device_id: 'v1-dev',
        active: '1',
        class_id: '7A',
      });
      await insert('notes', {
        id: 'v1-note',
        student_id: 'v1-student',
        type: 'audit',
        subject_id: 'MATH',
        class_id: '7A',
        text: 'Homework missing',
        note_date: T0,
        badge: '2',
        state: 'read',
        read_at: LATER,
      });
      await insert('absences', {
        id: 'v1-absence',
        student_id: 'v1-student',
        absence_date: '2026-02-27',
        type: 'sick',
        reason: 'flu',
        seen: 1,
        seen_at: LATER,
      });
      const push = { device_id: 'v1-dev', student_id: 'v1-student', type: 'absence', title: 'غياب', body: 'Absent' };
      await insert('push_notifications', {
        ...push,
        id: 'v1-push-sending',
        data: '{"studentId":"v1-student"}',
        status: 'sending',
        attempts: 1,
        next_attempt_at: T0,
        locked_until: LATER,
        last_error: 'HTTP 503 from the provider',
        created_at: T0,
        updated_at: T0,
        sent_at: null,
      });
      await insert('push_notifications', {
        ...push,
        id: 'v1-push-sent',
        data: '{}',
        status: 'sent',
        attempts: 1,
        next_attempt_at: T0,
        locked_until: null,
        last_error: null,
        created_at: T0,
        updated_at: LATER,
        sent_at: LATER,
      });
      await insert('auth_code_messages', {
        id: 'v1-sms-queued',
        phone: '+963944123456',
        code: '4321',
        status: 'queued',
        attempts: 0,
        next_attempt_at: T0,
        locked_until: null,
        last_error: null,
        caller_address: '10.0.0.1',
        created_at: T0,
        updated_at: T0,
        sent_at: null,
      });
      await insert('auth_code_messages', {
        id: 'v1-sms-sent',
        phone: '+963944123457',
        code: null,
        status: 'sent',
        attempts: 2,
        next_attempt_at: T0,
        locked_until: LATER,
        last_error: 'timeout',
        caller_address: null,
        created_at: T0,
        updated_at: LATER,
        sent_at: LATER,
      });
    },
    async check(store) {
      expect(await store.records.getDeviceToken('v1-dev')).toBe('v1-token');
      expect(await store.records.findStudent('v1-student')).toMatchObject({
        schoolKey: 'https://v1.school.example',
        deviceId: 'v1-dev',
      });
      expect(await store.records.listStudentsOfSchool('https://v1.school.example', '1')).toEqual([
        expect.objectContaining({ studentId: 'v1-student', fullName: 'سلمى الأولى', deviceId: 'v1-dev' }),
      ]);
      expect(await store.records.listAuditNotes('MATH', '7A')).toEqual([
        expect.objectContaining({ id: 'v1-note', text: 'Homework missing', state: 'read' }),
      ]);
      const data = await store.dataSet.readDataSet();
      expect(data.absences).toContainEqual(
        expect.objectContaining({ id: 'v1-absence', date: '2026-02-27', reason: 'flu', seen: true }),
      );
      expect(await store.admin.getOutboxMessage('push', 'v1-push-sending')).toMatchObject({
        item: {
          status: 'sending',
          attempts: 1,
          lastError: 'HTTP 503 from the provider',
          data: { studentId: 'v1-student' },
        },
      });
      expect(await store.admin.getOutboxMessage('sms', 'v1-sms-queued')).toMatchObject({
        item: { status: 'queued', code: '4321', phone: '+963944123456', callerAddress: '10.0.0.1' },
      });
      expect(await store.admin.getOutboxMessage('sms', 'v1-sms-sent')).toMatchObject({
        item: { status: 'sent', code: null, sentAt: LATER },
      });
    },
  },
  '0002_delivery': {
    async fill(insert) {
      await insert('push_notifications', {
        id: 'v2-push',
        device_id: 'v1-dev',
        student_id: 'v1-student',
        type: 'note',
        title: 'ملاحظة',
        body: 'Note',
        data: '{}',
        status: 'sent',
        attempts: 1,
        next_attempt_at: T0,
        claim_token: 'v2-claim',
        provider_message_id: 'projects/p/messages/0:v2',
        created_at: T0,
        updated_at: LATER,
        sent_at: LATER,
      });
      await insert('auth_code_messages', {
        id: 'v2-sms',
        phone: '+963944123458',
        code: '98765',
        status: 'sending',
        attempts: 1,
        next_attempt_at: T0,
        locked_until: LATER,
        claim_token: 'v2-sms-claim',
        provider_message_id: 'SM0002',
        created_at: T0,
        updated_at: T0,
      });
    },
    async check(store) {
      expect(await store.admin.getOutboxMessage('push', 'v2-push')).toMatchObject({
        item: { status: 'sent', sentAt: LATER },
      });
      expect(await store.admin.getOutboxMessage('sms', 'v2-sms')).toMatchObject({
        item: { status: 'sending', code: '98765', lockedUntil: LATER },
      });
    },
  },
  // Indexes for the prune of old sent and dead messages: such messages.
  '0003_delivery_scale': {
    async fill(insert) {
      await insert('push_notifications', {
        id: 'v3-push-dead',
        device_id: 'v1-dev',
        student_id: 'v1-student',
        type: 'absence',
        title: 't',
        body: 'b',
        data: '{}',
        status: 'dead',
        attempts: 8,
        next_attempt_at: T0,
        last_error: 'token unregistered',
        created_at: '2025-01-01T00:00:00.000Z',
        updated_at: '2025-01-02T00:00:00.000Z',
      });
    },
    async check(store) {
      expect((await store.admin.listPushNotifications({ status: 'dead' })).map((row) => row.id)).toContain(
        'v3-push-dead',
      );
    },
  },
  '0004_access': {
    async fill(insert) {
      await insert('access_audit', {
        id: 'v4-audit',
        at: T0,
        address: '10.0.0.7',
        user: 'school-gateway',
        endpoint: 'NotificationNotes.asmx',
        operation: 'GetStudentSchool',
        subject_kind: 'school',
        subject: 'https://v1.school.example',
        outcome: 'refused',
        reason: 'limit',
      });
      await insert('access_counters', {
        counter: '60000|school-reads|10.0.0.7',
        window_start: T0,
        window_end: '2026-03-01T08:01:00.000Z',
        count: 17,
      });
    },
    async check(store) {
      const page = await store.admin.listAuditEntries({ subject: 'https://v1.school.example', limit: 10, offset: 0 });
      expect(page.items).toContainEqual(
        expect.objectContaining({ id: 'v4-audit', user: 'school-gateway', outcome: 'refused', reason: 'limit' }),
      );
      const totals = await store.access.mergeAccessCounters({
        deltas: [],
        reads: [{ counter: '60000|school-reads|10.0.0.7', windowStart: T0 }],
      });
      expect([...totals.values()]).toEqual([17]);
    },
  },
  // Drops an index of the outbox: messages waiting for a retry, which it served.
  '0005_outbox_indexes': {
    async fill(insert) {
      await insert('push_notifications', {
        id: 'v5-push-failed',
        device_id: 'v1-dev',
        student_id: 'v1-student',
        type: 'absence',
        title: 't',
        body: 'b',
        data: '{}',
        status: 'failed',
        attempts: 3,
        next_attempt_at: '2026-03-01T10:00:00.000Z',
        last_error: 'HTTP 500',
        created_at: T0,
        updated_at: LATER,
      });
    },
    async check(store) {
      expect(await store.admin.getOutboxMessage('push', 'v5-push-failed')).toMatchObject({
        item: { status: 'failed', attempts: 3, nextAttemptAt: '2026-03-01T10:00:00.000Z' },
      });
    },
  },
  '0006_audit_bounds': {
    async fill(insert) {
      await insert('access_audit', {
        id: 'v6-summary',
        at: LATER,
        address: '10.0.0.8',
        user: null,
        endpoint: 'PushNotificationMobile.asmx',
        operation: 'GetTokenDevice',
        subject_kind: 'device',
        subject: 'd'.repeat(128),
        subject_length: 5000,
        subject_sha256: 'ab'.repeat(32),
        outcome: 'refused',
        reason: 'summary',
        omitted: 12,
      });
    },
    async check(store) {
      const page = await store.admin.listAuditEntries({ address: '10.0.0.8', limit: 10, offset: 0 });
      expect(page.items).toEqual([
        expect.objectContaining({ id: 'v6-summary', subjectLength: 5000, subjectSha256: 'ab'.repeat(32), omitted: 12 }),
      ]);
    },
  },
  // The queueing span's traceparent kept with each message (read by the worker's claim).
  '0007_trace_context': {
    async fill(insert) {
      await insert('push_notifications', {
        id: 'v7-push',
        device_id: 'v1-dev',
        student_id: 'v1-student',
        type: 'note',
        title: 't',
        body: 'b',
        data: '{}',
        status: 'queued',
        attempts: 0,
        next_attempt_at: T0,
        created_at: T0,
        updated_at: T0,
        traceparent: TRACEPARENT,
      });
      await insert('auth_code_messages', {
        id: 'v7-sms',
        phone: '+963944123459',
        code: '24680',
        status: 'queued',
        attempts: 0,
        next_attempt_at: T0,
        created_at: T0,
        updated_at: T0,
        traceparent: TRACEPARENT,
      });
    },
    // The value itself is compared with every other column's below; claiming here would change the rows.
    async check(store) {
      expect(await store.admin.getOutboxMessage('push', 'v7-push')).toMatchObject({ item: { status: 'queued' } });
      expect(await store.admin.getOutboxMessage('sms', 'v7-sms')).toMatchObject({ item: { status: 'queued' } });
    },
  },
  // The console: accounts, sessions, the attempt history, the workers' heartbeats, and the students' search name.
  '0008_console': {
    async fill(insert) {
      await insert('console_accounts', V8_ADMIN);
      await insert('console_sessions', {
        id: 'f'.repeat(64),
        account: 'v8-admin',
        csrf: 'c'.repeat(43),
        created_at: T0,
        last_seen_at: LATER,
      });
      await insert('outbox_attempts', {
        id: 'v8-attempt',
        channel: 'push',
        message_id: 'v2-push',
        attempt: 1,
        at: LATER,
        outcome: 'sent',
        code: '200',
        error: 'none',
        next_attempt_at: LATER,
      });
      await insert('delivery_workers', { id: 'v8-worker', started_at: T0, beat_at: LATER });
    },
    async check(store) {
      // An account stored before migration 0019 has no zone of its own: the console's default.
      expect((await store.console.listAccounts()).filter((account) => account.name === 'v8-admin')).toEqual([
        expect.objectContaining({ name: 'v8-admin', role: 'admin', disabled: true, timeZone: null }),
      ]);
      expect(await store.console.findSession('f'.repeat(64))).toMatchObject({ account: 'v8-admin', timeZone: null });
      expect(await store.console.listAttempts('push', 'v2-push')).toEqual([
        expect.objectContaining({ attempt: 1, outcome: 'sent', code: '200' }),
      ]);
      expect((await store.console.listWorkers()).map((worker) => worker.id)).toEqual(['v8-worker']);
      // The search name is computed from the name as the release before wrote it, diacritics and all.
      const hits = await store.console.searchStudents('سلمى', { limit: 10, offset: 0 });
      expect(JSON.stringify(hits)).toContain('v1-student');
    },
  },
  // A login code whose attempt had reached a gateway that cannot drop a repeat.
  '0009_sms_send_started': {
    async fill(insert) {
      await insert('auth_code_messages', {
        id: 'v9-sms',
        phone: '+963944123460',
        code: '13579',
        status: 'sending',
        attempts: 1,
        next_attempt_at: LATER,
        locked_until: LATER,
        claim_token: 'v9-sms-claim',
        created_at: T0,
        updated_at: T0,
        send_started_at: T0,
      });
    },
    // Claiming here would change the rows the comparison below reads.
    async check(store) {
      expect(await store.admin.getOutboxMessage('sms', 'v9-sms')).toMatchObject({ item: { status: 'sending' } });
    },
  },
  // The console's list of messages: the school a push was queued for, and the phone's searchable suffix,
  // which the database computes (the rows of 0007 are found by it whichever schema they were written on).
  '0010_message_list': {
    async fill(insert) {
      await insert('push_notifications', {
        id: 'v10-push',
        device_id: 'v1-dev',
        student_id: 'v1-student',
        type: 'absence',
        title: 't',
        body: 'b',
        data: '{}',
        status: 'dead',
        attempts: 3,
        next_attempt_at: T0,
        created_at: LATER,
        updated_at: LATER,
        traceparent: TRACEPARENT,
        school_key: 'https://v10.school.example',
      });
    },
    async check(store) {
      const none = { status: null, channel: null, school: null, type: null, from: null, until: null, error: null };
      const bySchool = await store.console.listMessages(
        { ...none, find: null, school: 'https://v10.school.example' },
        { limit: 10 },
      );
      expect(bySchool.items.map((item) => item.id)).toEqual(['v10-push']);
      const byPhone = await store.console.listMessages({ ...none, find: '3459' }, { limit: 10 });
      expect(byPhone.items.map((item) => item.id)).toEqual(['v7-sms']);
    },
  },
  // A school's event subscription, failing, with an event waiting for its retry.
  '0011_events': {
    async fill(insert) {
      await insert('event_subscriptions', {
        school_key: 'https://v1.school.example',
        url: 'https://hooks.v1.school.example/events',
        secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
        state: 'failing',
        failing_since: T0,
        last_error: 'http_503: the receiver answered 503',
        created_at: T0,
        updated_at: T0,
      });
      await insert('event_outbox', {
        id: 'msg_v11_2',
        school_key: 'https://v1.school.example',
        message_id: 'v1-push-sending',
        seq: 2,
        type: 'notification.sent',
        body: '{"type":"notification.sent"}',
        status: 'failed',
        attempts: 1,
        next_attempt_at: LATER,
        locked_until: LATER,
        claim_token: 'v11-claim',
        last_error: 'http_503: the receiver answered 503',
        created_at: T0,
        updated_at: T0,
        sent_at: T0,
      });
    },
    async check(store) {
      expect(await store.admin.getEventSubscription('https://v1.school.example')).toMatchObject({
        url: 'https://hooks.v1.school.example/events',
        state: 'failing',
        failed: 1,
      });
    },
  },
  // The search column folds hamza forms and taa marbuta: a name written before, as 0008 computed it, is found
  // by its bare spelling once 0012 has recomputed the column.
  '0012_arabic_folding': {
    async fill(insert) {
      await insert('schools', {
        key: 'https://v12.school.example',
        base_url: 'https://v12.school.example',
        name: 'V12',
      });
      await insert('students', {
        id: 'v12-student',
        school_key: 'https://v12.school.example',
        full_name: 'إسراء فاطمة',
        device_id: null,
        active: '1',
        class_id: '7A',
      });
    },
    async check(store) {
      const hits = await store.console.searchStudents('اسراء فاطمه', { limit: 10, offset: 0 });
      expect(hits.items.map((hit) => hit.id)).toEqual(['v12-student']);
    },
  },
  // A school's clock and options, and a push held through its quiet hours with its options resolved.
  '0013_message_options_quiet_hours': {
    async fill(insert) {
      await insert('schools', {
        key: 'https://v13.school.example',
        base_url: 'https://v13.school.example',
        name: 'V13',
        time_zone: 'Europe/London',
        quiet_hours: '21:00-07:00',
        push_options: '{"note":{"android":{"channelId":"notes"}}}',
      });
      await insert('push_notifications', {
        id: 'v13-push',
        device_id: 'v1-dev',
        student_id: 'v1-student',
        type: 'note',
        title: 't',
        body: 'b',
        data: '{}',
        status: 'queued',
        attempts: 0,
        next_attempt_at: LATER,
        created_at: T0,
        updated_at: T0,
        school_key: 'https://v13.school.example',
        options: `{"expiresAt":"${LATER}","android":{"priority":"normal"},"apns":{"priority":5},"webpush":{}}`,
      });
    },
    async check(store) {
      expect(await store.admin.getRecord('schools', 'https://v13.school.example')).toEqual({
        baseUrl: 'https://v13.school.example',
        name: 'V13',
        timeZone: 'Europe/London',
        quietHours: '21:00-07:00',
        pushOptions: { note: { android: { channelId: 'notes' } } },
        fcmProject: null,
      });
      // A school stored before keeps UTC and no quiet hours.
      expect(await store.admin.getRecord('schools', 'https://v1.school.example')).toMatchObject({
        timeZone: 'UTC',
        quietHours: null,
      });
      expect(await store.admin.getOutboxMessage('push', 'v13-push')).toMatchObject({
        item: {
          heldUntil: LATER,
          options: { expiresAt: LATER, android: { priority: 'normal' }, apns: { priority: 5 } },
        },
      });
    },
  },
  // A dead letter dismissed from the console: kept, and out of the list while it stays dead.
  '0014_dead_letter_dismissal': {
    async fill(insert) {
      await insert('push_notifications', {
        id: 'v14-push',
        device_id: 'v1-dev',
        student_id: 'v1-student',
        type: 'absence',
        title: 't',
        body: 'b',
        data: '{}',
        status: 'dead',
        attempts: 3,
        next_attempt_at: T0,
        last_error: 'UNREGISTERED: gone',
        created_at: T0,
        updated_at: T0,
        school_key: 'https://v1.school.example',
        dismissed_at: LATER,
      });
      await insert('auth_code_messages', {
        id: 'v14-sms',
        phone: '+963944123461',
        code: '24680',
        status: 'dead',
        attempts: 1,
        next_attempt_at: T0,
        last_error: 'twilio_21211: invalid To',
        created_at: T0,
        updated_at: T0,
        dismissed_at: LATER,
      });
    },
    async check(store) {
      const dismissed = await store.console.listDead('push', { errors: null, dismissed: true }, { limit: 50 });
      expect(dismissed.items.map((item) => item.id)).toEqual(['v14-push']);
      const shown = await store.console.listDead('push', { errors: null, dismissed: false }, { limit: 50 });
      expect(shown.items.map((item) => item.id)).not.toContain('v14-push');
      const sms = await store.console.listDead('sms', { errors: null, dismissed: true }, { limit: 50 });
      expect(sms.items.map((item) => item.id)).toEqual(['v14-sms']);
    },
  },
  // A refused call, kept for the console with its phone masked.
  '0015_refused_calls': {
    async fill(insert) {
      await insert('refused_calls', {
        id: 'v15-refused',
        created_at: T0,
        operation: 'AuthCode',
        channel: 'sms',
        reason: 'auth_code_limit_phone',
        student_id: null,
        school_key: null,
        type: null,
        phone: '+*********462',
        phone_suffix: '3462',
      });
      await insert('refused_calls', REFUSED_PUSH);
    },
    async check(store) {
      const none = { channel: null, school: null, type: null, from: null, until: null, error: null };
      const refused = await store.console.listMessages({ ...none, status: 'refused', find: '3462' }, { limit: 10 });
      expect(refused.items.map((item) => [item.id, item.status, item.lastError])).toEqual([
        ['v15-refused', 'refused', 'auth_code_limit_phone'],
      ]);
    },
  },
  // A school on its own FCM project (a name the store accepts as read; a write checks it against the configuration).
  '0016_school_fcm_project': {
    async fill(insert) {
      await insert('schools', {
        key: 'https://v16.school.example',
        base_url: 'https://v16.school.example',
        name: 'V16',
        time_zone: 'UTC',
        quiet_hours: null,
        push_options: null,
        fcm_project: 'brand-a',
      });
    },
    async check(store) {
      expect(await store.admin.getRecord('schools', 'https://v16.school.example')).toMatchObject({
        fcmProject: 'brand-a',
      });
      // A school stored before stays on the default project.
      expect(await store.admin.getRecord('schools', 'https://v1.school.example')).toMatchObject({ fcmProject: null });
      expect(await store.outbox.schoolFcmProjects(['https://v16.school.example', 'https://v1.school.example'])).toEqual(
        new Map([
          ['https://v16.school.example', 'brand-a'],
          ['https://v1.school.example', null],
        ]),
      );
    },
  },
  // A roster upload in two chunks whose dry run a node's background slot holds, and a name with failed sign-ins.
  '0017_console_jobs': {
    async fill(insert) {
      await insert('console_uploads', {
        id: 'v17-upload-aaaaaaaaaaaa',
        account: 'v8-operator',
        file_name: 'pupils.csv',
        collection: 'students',
        size: 19,
        chunks: 2,
        uploaded_at: T0,
      });
      await insert('console_upload_chunks', {
        upload_id: 'v17-upload-aaaaaaaaaaaa',
        seq: 0,
        data: Buffer.from('id,school,'),
        stored_at: T0,
      });
      await insert('console_upload_chunks', {
        upload_id: 'v17-upload-aaaaaaaaaaaa',
        seq: 1,
        data: Buffer.from('fullName\n'),
        stored_at: T0,
      });
      await insert('console_import_jobs', {
        id: 'v17-upload-aaaaaaaaaaaa:check',
        upload_id: 'v17-upload-aaaaaaaaaaaa',
        kind: 'check',
        state: 'running',
        active: 1,
        stage: 'checking',
        done: 1,
        total: 2,
        report: '{"files":[]}',
        attempts: 1,
        locked_until: LATER,
        claim_token: 'v17-claim',
        created_at: T0,
        updated_at: T0,
      });
      await insert('console_sign_in_failures', { key: 'account:v8-operator', window_start: T0, count: 2 });
      await insert('console_sign_in_trust', { key: '192.0.2.1|v8-operator', until: LATER });
    },
    async check(store) {
      expect(await store.console.findUpload('v17-upload-aaaaaaaaaaaa')).toMatchObject({
        fileName: 'pupils.csv',
        chunks: 2,
        check: { state: 'running', done: 1, total: 2 },
        apply: null,
      });
      expect((await store.console.readUploadChunk('v17-upload-aaaaaaaaaaaa', 1))?.toString()).toBe('fullName\n');
      expect(await store.console.readSignInFailures(['account:v8-operator'], T0)).toEqual(
        new Map([['account:v8-operator', 2]]),
      );
    },
  },
  // The type and last error indexes of the list of messages: a push and a refused call of a type, found by it,
  // and the push by its last error.
  '0018_message_list_indexes': {
    async fill(insert) {
      await insert('push_notifications', {
        id: 'v18-push',
        device_id: 'v1-dev',
        student_id: 'v1-student',
        type: 'exam',
        title: 't',
        body: 'b',
        data: '{}',
        status: 'failed',
        attempts: 1,
        next_attempt_at: T0,
        last_error: 'QUOTA_EXCEEDED: v18',
        created_at: LATER,
        updated_at: LATER,
        school_key: 'https://v1.school.example',
      });
      await insert('refused_calls', { ...REFUSED_PUSH, id: 'v18-refused', type: 'exam' });
    },
    async check(store) {
      const none = { status: null, channel: null, school: null, from: null, until: null, find: null, error: null };
      const found = await store.console.listMessages({ ...none, type: 'exam' }, { limit: 10 });
      expect(found.items.map((item) => [item.id, item.status])).toEqual([
        ['v18-push', 'failed'],
        ['v18-refused', 'refused'],
      ]);
      const byError = await store.console.listMessages(
        { ...none, type: null, error: 'QUOTA_EXCEEDED: v18' },
        { limit: 10 },
      );
      expect(byError.items.map((item) => item.id)).toEqual(['v18-push']);
    },
  },
  // An operator who chose a zone, read with the account and with its session.
  '0019_console_account_time_zone': {
    async fill(insert) {
      await insert('console_accounts', { ...V8_ADMIN, name: 'v19-viewer', role: 'viewer', time_zone: 'Asia/Riyadh' });
      await insert('console_sessions', {
        id: 'e'.repeat(64),
        account: 'v19-viewer',
        csrf: 'd'.repeat(43),
        created_at: T0,
        last_seen_at: LATER,
      });
    },
    async check(store) {
      expect((await store.console.listAccounts()).find((account) => account.name === 'v19-viewer')).toMatchObject({
        timeZone: 'Asia/Riyadh',
      });
      expect(await store.console.findSession('e'.repeat(64))).toMatchObject({
        account: 'v19-viewer',
        timeZone: 'Asia/Riyadh',
      });
    },
  },
  // The settled index: a dead push written at this schema is found by the dead letters, newest first, and
  // the outbox's counts and prune read what they did.
  '0020_outbox_settled_index': {
    async fill(insert) {
      // A push given up after its tenth attempt, to the student and device of 0001.
      const given = { id: 'v20-push', status: 'dead', attempts: 10, last_error: 'INVALID_ARGUMENT: v20' };
      const texts = { type: 'note', title: 'v20 title', body: 'v20 body', data: '{"v":"20"}' };
      const times = { next_attempt_at: T0, created_at: LATER, updated_at: LATER };
      await insert('push_notifications', {
        ...given,
        ...texts,
        ...times,
        device_id: 'v1-dev',
        student_id: 'v1-student',
        school_key: 'https://v1.school.example',
      });
    },
    async check(store) {
      const page = await store.console.listDead(
        'push',
        { errors: ['INVALID_ARGUMENT: v20'], dismissed: false },
        { limit: 10 },
      );
      expect(page.items.map((item) => item.id)).toEqual(['v20-push']);
      expect(page.total).toBe(1);
    },
  },
};

test('every migration has a fill, and every fill a migration', () => {
  const missing = MIGRATION_NAMES.filter((name) => !Object.hasOwn(FILLS, name));
  expect(missing.map((name) => `add a fill for migration ${name} to FILLS in test/store/upgrade.test.ts`)).toEqual([]);
  expect(Object.keys(FILLS).filter((name) => !MIGRATION_NAMES.includes(name))).toEqual([]);
});

/** Computed columns a migration defines anew, by the migration that does: their values change on purpose. */
const RECOMPUTED: Readonly<Record<string, string>> = { 'students.search_name': '0012_arabic_folding' };

/** Whether `column` (table.column) is computed anew by a migration after `name`. */
function recomputedAfter(name: string, column: string): boolean {
  const by = RECOMPUTED[column];
  return by !== undefined && name < by;
}

/** A database of its own, at a chosen schema, and the store options that reach it. */
interface Location {
  readonly dialect: StoreDialect;
  readonly options: OpenStoreOptions;
  /** A Kysely of its own, and the schema of its migration table, as the service would open it. */
  raw(): Promise<{ db: Kysely<unknown>; migrationSchema: string | undefined }>;
  /** The tables of our schema (not the migrator's own). */
  tables(db: Kysely<unknown>): Promise<Array<{ name: string; columns: string[] }>>;
  remove(): Promise<void>;
}

function sqliteLocation(): Location {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-upgrade-'));
  return {
    dialect: 'sqlite',
    options: { dataDir },
    raw: () =>
      Promise.resolve({ db: new Kysely<unknown>({ dialect: openSqliteDialect(dataDir) }), migrationSchema: undefined }),
    tables: (db) => ourTables(db, undefined),
    remove: () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })),
  };
}

function postgresLocation(databaseUrl: string): Location {
  const schema = `upgrade_test_${randomBytes(6).toString('hex')}`;
  const dataDir = os.tmpdir();
  const raw = async () => {
    const db = new Kysely<unknown>({ dialect: createPostgresDialect({ databaseUrl, schema }) });
    return { db, migrationSchema: await preparePostgresSchema(db, schema) };
  };
  return {
    dialect: 'postgres',
    options: { databaseUrl, schema, dataDir },
    raw,
    tables: (db) => ourTables(db, schema),
    async remove() {
      const { db } = await raw();
      try {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
      } finally {
        await db.destroy();
      }
    },
  };
}

async function ourTables(
  db: Kysely<unknown>,
  schema: string | undefined,
): Promise<Array<{ name: string; columns: string[] }>> {
  const tables = await db.introspection.getTables();
  return tables
    .filter((table) => table.schema === schema && !table.name.startsWith('kysely_'))
    .map((table) => ({ name: table.name, columns: table.columns.map((column) => column.name) }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Every row of `table`, `columns` only, in a stable order. */
async function rowsOf(db: Kysely<unknown>, table: string, columns: readonly string[]): Promise<string[]> {
  const { rows } =
    await sql<Row>`select ${sql.join(columns.map((column) => sql.ref(column)))} from ${sql.table(table)}`.execute(db);
  return rows.map((row) => JSON.stringify(columns.map((column) => row[column]))).sort();
}

const databaseUrl = testDatabaseUrl();
const variants: Array<{ name: StoreDialect; location: () => Location }> = wantedStores().map((name) =>
  name === 'postgres' && databaseUrl !== undefined
    ? { name, location: () => postgresLocation(databaseUrl) }
    : { name: 'sqlite', location: sqliteLocation },
);

describe.each(variants)('upgrading on $name', ({ location: create }) => {
  let location: Location;
  const opened: OpenedStore[] = [];
  beforeEach(() => {
    location = create();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.lifecycle.close()));
    await location.remove();
  });

  it('is refused by a release older than the schema: it does not start on it', async () => {
    const { db, migrationSchema } = await location.raw();
    try {
      await migrateUpTo(db, location.dialect, migrationSchema, MIGRATION_NAMES[MIGRATION_NAMES.length - 1]);
      // What a newer release leaves behind: a migration this one does not know.
      const table = migrationSchema === undefined ? 'kysely_migration' : `${migrationSchema}.kysely_migration`;
      await sql`insert into ${sql.table(table)} (name, timestamp) values ('9999_newer', ${new Date().toISOString()})`.execute(
        db,
      );
    } finally {
      await db.destroy();
    }
    const refusal = await openStore(location.options).then(
      (store) => {
        opened.push(store);
        return null;
      },
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(StoreError);
    expect(String((refusal as StoreError).cause)).toContain('previously executed migration 9999_newer is missing');
  });

  it.each(MIGRATION_NAMES.map((name, index) => ({ name, index })))(
    'from the schema of $name to this release, with every row and value kept',
    async ({ name, index }) => {
      const applied = MIGRATION_NAMES.slice(0, index + 1);
      for (const each of applied) {
        if (!Object.hasOwn(FILLS, each))
          throw new Error(`add a fill for migration ${each} to FILLS in test/store/upgrade.test.ts`);
      }

      // The store as the release that ended with `name` left it, filled.
      const at = await location.raw();
      const migrationSchema = at.migrationSchema;
      let db = at.db;
      let before: Map<string, { columns: string[]; rows: string[] }>;
      try {
        await migrateUpTo(db, location.dialect, migrationSchema, name);
        const { rows } = await sql<{
          name: string;
        }>`select name from ${sql.table(migrationSchema === undefined ? 'kysely_migration' : `${migrationSchema}.kysely_migration`)} order by name`.execute(
          db,
        );
        expect(rows.map((row) => row.name)).toEqual(applied);
        const insert = async (table: string, row: Row) => {
          const columns = Object.keys(row);
          await sql`insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))}) values (${sql.join(columns.map((column) => row[column]))})`.execute(
            db,
          );
        };
        for (const each of applied) await FILLS[each].fill(insert);

        // Representative: a row in every table and a value in every column this schema has.
        const tables = await location.tables(db);
        expect(tables.length).toBeGreaterThan(0);
        const empty: string[] = [];
        before = new Map();
        for (const table of tables) {
          for (const column of table.columns) {
            const { rows: found } = await sql<{
              n: number | string;
            }>`select count(*) as n from ${sql.table(table.name)} where ${sql.ref(column)} is not null`.execute(db);
            if (Number(found[0].n) === 0) empty.push(`${table.name}.${column}`);
          }
          // A column the database computes, which a later migration computes anew, is compared without it.
          const kept = table.columns.filter((column) => !recomputedAfter(name, `${table.name}.${column}`));
          before.set(table.name, { columns: kept, rows: await rowsOf(db, table.name, kept) });
        }
        expect({ name, empty }).toEqual({ name, empty: [] });
      } finally {
        await db.destroy();
      }

      // This release opens it: the migrations after `name` run.
      const store = await openStore(location.options);
      opened.push(store);
      expect(await store.lifecycle.migrationStatus()).toMatchObject({
        current: true,
        applied: MIGRATION_NAMES,
        unknown: [],
      });
      for (const each of applied) await FILLS[each].check(store);

      ({ db } = await location.raw());
      try {
        for (const [table, { columns, rows }] of before) {
          expect({ table, rows: await rowsOf(db, table, columns) }).toEqual({ table, rows });
        }
      } finally {
        await db.destroy();
      }
    },
  );
});
