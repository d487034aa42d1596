// The admin API as an operator's script sees it: bearer auth, CRUD of every
// collection, validation errors, paging, the outbox, and its OpenAPI document.
import request from 'supertest';
import type { DataSetCollection } from '../../src/store';
import { asStored } from '../support/fixtures';
import { ADMIN_TOKEN, startOperatedService, type OperatedService } from '../support/operated-service';
import { setKnownFcmProjects } from '../../src/domain/fcm-project';
import { storeVariants, sqliteVariant } from '../support/stores';
import { bodyText, httpGet, httpPost } from '../support/wire';

const BASE = '/admin/api/v1';

describe.each(storeVariants())('admin API on $name', (variant) => {
  let service: OperatedService;
  beforeEach(async () => {
    service = await startOperatedService(variant);
  });
  afterEach(() => service.stop());

  const api = () => {
    const agent = request(service.app);
    const auth = (test: request.Test) => test.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    return {
      get: (path: string) => auth(agent.get(`${BASE}${path}`)),
      post: (path: string, body?: unknown) => auth(agent.post(`${BASE}${path}`)).send(body as object),
      put: (path: string, body: unknown) => auth(agent.put(`${BASE}${path}`)).send(body as object),
      patch: (path: string, body: unknown) => auth(agent.patch(`${BASE}${path}`)).send(body as object),
      delete: (path: string) => auth(agent.delete(`${BASE}${path}`)),
    };
  };

  describe('authentication', () => {
    it('answers 401 with a Bearer challenge without a token, and changes nothing', async () => {
      const res = await request(service.app).post(`${BASE}/devices`).send({ id: 'dev-x', token: 't' });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="admin"');
      expect(res.body).toEqual({
        error: { code: 'unauthorized', message: expect.stringContaining('Authorization: Bearer') },
      });
      expect(await service.store.admin.getRecord('devices', 'dev-x')).toBeNull();
    });

    it('answers 401 to a wrong token, changes nothing, and logs the attempt without the token', async () => {
      const res = await request(service.app)
        .delete(`${BASE}/devices/dev-1001`)
        .set('Authorization', `Bearer ${ADMIN_TOKEN}x`);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="admin", error="invalid_token"');
      expect(res.body.error.code).toBe('invalid_token');
      expect(await service.store.admin.getRecord('devices', 'dev-1001')).not.toBeNull();
      expect(service.logs.some((l) => l.msg === 'admin API: wrong bearer token')).toBe(true);
      expect(JSON.stringify(service.logs)).not.toContain(ADMIN_TOKEN);
    });

    it('accepts the scheme in any letter case', async () => {
      expect(
        (await request(service.app).get(`${BASE}/schools`).set('Authorization', `bearer ${ADMIN_TOKEN}`)).status,
      ).toBe(200);
    });
  });

  describe('records', () => {
    const cases = [
      {
        collection: 'schools',
        path: `/schools/${encodeURIComponent('https://school-c.example')}`,
        record: { baseUrl: 'https://school-c.example', name: 'School C' },
        patch: { name: 'School C (new name)' },
      },
      {
        collection: 'students',
        path: '/students/3001',
        record: {
          id: '3001',
          school: 'https://school-a.example',
          fullName: 'Sara Nasser',
          deviceId: 'dev-1001',
          active: '1',
          classId: '6A',
        },
        patch: { active: '0', classId: null },
      },
      {
        collection: 'devices',
        path: '/devices/dev-3001',
        record: { id: 'dev-3001', token: 'fcm:new', platform: 'android' },
        patch: { token: null },
      },
      {
        collection: 'notes',
        path: '/notes/n-new',
        record: {
          id: 'n-new',
          studentId: '1001',
          type: 'general',
          subjectId: null,
          classId: '7A',
          text: 'Trip on Thursday',
          date: '2026-11-01T07:00:00.000Z',
          badge: '1',
          state: 'unread',
        },
        patch: { state: 'read', text: 'Trip moved to Friday' },
      },
      {
        collection: 'absences',
        path: '/absences/a-new',
        record: { id: 'a-new', studentId: '1001', date: '2026-11-02', type: 'late', reason: null, seen: false },
        patch: { reason: 'Bus', seen: true },
      },
    ] as const satisfies readonly {
      collection: DataSetCollection;
      path: string;
      record: Record<string, unknown>;
      patch: Record<string, unknown>;
    }[];

    it.each(cases)(
      'creates, reads, refuses a duplicate, changes, replaces and deletes $collection',
      async ({ collection, path, record, patch }) => {
        const created = await api().post(`/${collection}`, record);
        expect(created.status).toBe(201);
        expect(created.headers.location).toBe(`${BASE}${path}`);
        expect(created.body).toEqual(asStored(collection, record));
        expect((await api().get(path)).body).toEqual(asStored(collection, record));

        const again = await api().post(`/${collection}`, record);
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('conflict');

        const changed = await api().patch(path, patch);
        expect(changed.status).toBe(200);
        expect(changed.body).toEqual(asStored(collection, { ...record, ...patch }));

        const replaced = await api().put(path, record);
        expect(replaced.status).toBe(200);
        expect(replaced.body).toEqual(asStored(collection, record));

        expect((await api().delete(path)).status).toBe(204);
        expect((await api().get(path)).status).toBe(404);
        expect((await api().patch(path, patch)).status).toBe(404);
        expect((await api().delete(path)).status).toBe(404);
        expect((await api().put(path, record)).status).toBe(201);
      },
    );

    it('registers or replaces a push token, which GetTokenDevice then answers', async () => {
      const res = await api().put('/devices/dev-1001', { token: 'fcm:replaced', platform: 'ios' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: 'dev-1001', token: 'fcm:replaced', platform: 'ios' });
      expect(
        bodyText(await httpGet(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' })),
      ).toContain('fcm:replaced');
      expect((await api().put('/devices/dev-9', { token: 'fcm:9' })).status).toBe(201);
    });

    it('finds a school by any form of its base URL', async () => {
      const res = await api().get(`/schools/${encodeURIComponent('HTTPS://School-B.example')}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        baseUrl: 'https://school-b.example/',
        name: 'School B',
        timeZone: 'UTC',
        quietHours: null,
        pushOptions: null,
        fcmProject: null,
      });
    });

    it('pages lists with limit and offset, and filters them', async () => {
      const first = await api().get('/students?limit=4');
      expect(first.body).toMatchObject({ total: 6, limit: 4, offset: 0, nextOffset: 4 });
      expect(first.body.items.map((s: { id: string }) => s.id)).toEqual(['1001', '1002', '1003', '1004']);
      const last = await api().get('/students?limit=4&offset=4');
      expect(last.body).toMatchObject({ total: 6, nextOffset: null });
      expect(last.body.items).toHaveLength(2);
      const filtered = await api().get(`/students?school=${encodeURIComponent('https://SCHOOL-B.example/')}`);
      expect(filtered.body.items.map((s: { id: string }) => s.id)).toEqual(['2001']);
      const unseen = await api().get('/absences?studentId=1001&seen=false');
      expect(unseen.body.total).toBe(2);
    });

    it('stops a page of large records at about 1 MiB and gives the offset to continue from', async () => {
      const text = 'n'.repeat(8000);
      await service.store.dataSet.writeDataSet({
        notes: Array.from({ length: 300 }, (_, i) => ({
          id: `big-${String(i).padStart(3, '0')}`,
          studentId: '1001',
          type: 'general',
          text,
          date: '2030-01-01T00:00:00Z',
        })),
      });
      const seen: string[] = [];
      let offset: number | null = 0;
      while (offset !== null) {
        const res = await api().get(`/notes?studentId=1001&type=general&limit=500&offset=${offset}`);
        expect(res.status).toBe(200);
        expect(Buffer.byteLength(res.text)).toBeLessThan(1024 * 1024 + 9000);
        expect(res.body.items.length).toBeLessThan(300);
        seen.push(...res.body.items.map((n: { id: string }) => n.id));
        expect(res.body.nextOffset).toBe(
          offset + res.body.items.length < res.body.total ? offset + res.body.items.length : null,
        );
        offset = res.body.nextOffset;
      }
      expect(seen.filter((id) => id.startsWith('big-'))).toEqual(
        Array.from({ length: 300 }, (_, i) => `big-${String(i).padStart(3, '0')}`),
      );
    });

    it('refuses to delete a school that still has students, and deletes a student with its notes and absences', async () => {
      const school = await api().delete(`/schools/${encodeURIComponent('https://school-b.example')}`);
      expect(school.status).toBe(409);
      expect(school.body.error).toMatchObject({ code: 'in_use' });
      expect((await api().delete('/students/1001')).status).toBe(204);
      expect((await api().get('/notes?studentId=1001')).body.total).toBe(0);
    });
  });

  describe('validation', () => {
    it('names every problem of a body, with its path', async () => {
      const res = await api().post('/students', {
        id: '',
        school: 'https://school-a.example',
        fullname: 'typo',
        active: 'yes',
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      const paths = res.body.error.details.map((d: { path: string }) => d.path);
      expect(paths).toEqual(expect.arrayContaining(['body.id', 'body.fullName', 'body.active', 'body']));
      expect(res.body.error.details.find((d: { path: string }) => d.path === 'body').message).toMatch(/fullname/);
    });

    it('takes a student\'s active flag as "1"/"0" or as the number 1/0, and shows it as "1"/"0"', async () => {
      const res = await api().post('/students', {
        id: '9',
        school: 'https://school-a.example',
        fullName: 'X',
        active: 0,
      });
      expect(res.status).toBe(201);
      expect(res.body.active).toBe('0');
      expect((await api().patch('/students/9', { active: 1 })).body.active).toBe('1');
      expect((await api().patch('/students/9', { active: '0' })).body.active).toBe('0');
      const refused = await api().patch('/students/9', { active: 2 });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details).toEqual([{ path: 'body.active', message: 'must be "1" or "0".' }]);
      expect((await api().get('/students?active=0')).body.items.map((s: { id: string }) => s.id)).toContain('9');
    });

    it('sets, refuses and clears a school’s FCM project by the names configured (FCM_PROJECTS)', async () => {
      setKnownFcmProjects(['brand-a']);
      try {
        const path = `/schools/${encodeURIComponent('https://school-b.example/')}`;
        const set = await api().patch(path, { fcmProject: 'brand-a' });
        expect(set.status).toBe(200);
        expect(set.body).toMatchObject({ baseUrl: 'https://school-b.example/', fcmProject: 'brand-a' });
        expect((await api().get(path)).body.fcmProject).toBe('brand-a');
        const refused = await api().patch(path, { fcmProject: 'brand-z' });
        expect(refused.status).toBe(400);
        expect(refused.body.error.details).toEqual([
          { path: 'body.fcmProject', message: 'must name an FCM project configured in FCM_PROJECTS, or default.' },
        ]);
        expect((await api().patch(path, { fcmProject: null })).body.fcmProject).toBeNull();
      } finally {
        setKnownFcmProjects([]);
      }
    });

    it('refuses with 422 what only the store can tell: an unknown school, a date that does not exist', async () => {
      const school = await api().post('/students', { id: '9', school: 'https://nowhere.example', fullName: 'X' });
      expect(school.status).toBe(422);
      expect(school.body.error).toMatchObject({
        code: 'invalid_record',
        details: [{ path: 'body.school', message: expect.stringContaining('neither stored') }],
      });
      const date = await api().post('/notes', {
        id: 'n9',
        studentId: '1001',
        type: 'general',
        text: 'x',
        date: '2026-02-30T10:00:00Z',
      });
      expect(date.status).toBe(422);
      expect(date.body.error.details).toEqual([{ path: 'body.date', message: 'is not a calendar date.' }]);
    });

    it.each([
      ['notes', { id: 'n-orphan', studentId: '9999', type: 'general', text: 'x', date: '2026-11-01T07:00:00Z' }],
      ['absences', { id: 'a-orphan', studentId: '9999', date: '2026-11-02', type: 'late' }],
    ] as const)(
      'refuses %s naming a student that does not exist, on create, replace and change',
      async (collection, record) => {
        const named = [
          { path: 'body.studentId', message: expect.stringMatching(/^names a student that .*\(9999\)\.$/) },
        ];
        const created = await api().post(`/${collection}`, record);
        expect(created.status).toBe(422);
        expect(created.body.error).toMatchObject({ code: 'invalid_record', details: named });
        expect((await api().get(`/${collection}/${record.id}`)).status).toBe(404);

        expect((await api().post(`/${collection}`, { ...record, studentId: '1001' })).status).toBe(201);
        const replaced = await api().put(`/${collection}/${record.id}`, record);
        expect(replaced.status).toBe(422);
        expect(replaced.body.error.details).toEqual(named);
        const changed = await api().patch(`/${collection}/${record.id}`, { studentId: '9999' });
        expect(changed.status).toBe(422);
        expect(changed.body.error.details).toEqual(named);
        expect((await api().get(`/${collection}/${record.id}`)).body.studentId).toBe('1001');
      },
    );

    it('lets a student name a device that is not registered yet', async () => {
      const res = await api().post('/students', {
        id: '3002',
        school: 'https://school-a.example',
        fullName: 'Rami Saad',
        deviceId: 'dev-not-yet',
      });
      expect(res.status).toBe(201);
      expect(res.body.deviceId).toBe('dev-not-yet');
    });

    it('refuses bad JSON, a missing body, a key that differs from the path, and bad paging', async () => {
      const bad = await request(service.app)
        .post(`${BASE}/devices`)
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .set('Content-Type', 'application/json')
        .send('{"id": ');
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_json');
      const none = await api().post('/devices');
      expect(none.status).toBe(400);
      expect(none.body.error.message).toMatch(/JSON body/);
      const mismatch = await api().put('/devices/dev-1', { id: 'dev-2' });
      expect(mismatch.status).toBe(400);
      expect(mismatch.body.error.code).toBe('key_mismatch');
      const limit = await api().get('/students?limit=0');
      expect(limit.status).toBe(400);
      expect(limit.body.error.details[0].path).toBe('query.limit');
      expect((await api().get('/students?colour=red')).status).toBe(400);
    });

    it('answers unknown routes 404 and known ones with another method 405, in JSON', async () => {
      const missing = await api().get('/teachers');
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('not_found');
      const method = await api().post('/students/1001', {});
      expect(method.status).toBe(405);
      expect(method.headers.allow).toBe('GET, PUT, PATCH, DELETE');
    });
  });

  describe('outbox', () => {
    it('lists the notification just queued, newest first, and re-sends a dead one', async () => {
      await httpPost(service.app, 'NotificationNotes', 'SendNotificationType', {
        id: '1001',
        baseUrlSchool: 'https://school-a.example',
        TypeNotfication: 'absence',
      });
      const list = await api().get('/outbox/push?status=queued');
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(1);
      const [message] = list.body.items;
      expect(message).toMatchObject({
        studentId: '1001',
        deviceId: 'dev-1001',
        type: 'absence',
        status: 'queued',
        attempts: 0,
      });

      expect((await api().post(`/outbox/push/${message.id}/resend`)).status).toBe(409);
      await service.testStore.query("update push_notifications set status = 'dead', attempts = 5 where id = ?", [
        message.id,
      ]);
      expect((await api().get('/outbox/push?status=dead')).body.total).toBe(1);
      const resent = await api().post(`/outbox/push/${message.id}/resend`);
      expect(resent.status).toBe(200);
      expect(resent.body).toEqual({ channel: 'push', id: message.id, status: 'queued' });
      expect((await api().get('/outbox/push')).body.items[0]).toMatchObject({ status: 'queued', attempts: 0 });
      expect((await api().post('/outbox/push/nope/resend')).status).toBe(404);
    });

    it('shows one message by id, an auth code masked and without its code', async () => {
      await httpPost(service.app, 'NotificationNotes', 'SendNotificationType', {
        id: '1001',
        baseUrlSchool: 'https://school-a.example',
        TypeNotfication: 'absence',
      });
      await httpPost(service.app, 'AuthCodeSending', 'AuthCode', { code: '482913', phone: '0944123456' });
      const [push] = (await api().get('/outbox/push')).body.items;
      const [sms] = (await api().get('/outbox/sms')).body.items;
      await service.testStore.query(
        "update push_notifications set status = 'dead', attempts = 3, last_error = 'UNREGISTERED' where id = ?",
        [push.id],
      );

      const one = await api().get(`/outbox/push/${push.id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual({
        ...push,
        status: 'dead',
        attempts: 3,
        lastError: 'UNREGISTERED',
        updatedAt: push.updatedAt,
      });
      const code = await api().get(`/outbox/sms/${sms.id}`);
      expect(code.body).toEqual(sms);
      expect(code.body).toMatchObject({ phone: '+*********456', hasCode: true });
      expect(JSON.stringify(code.body)).not.toContain('482913');

      expect((await api().get(`/outbox/sms/${push.id}`)).status).toBe(404);
      expect((await api().get('/outbox/push/nope')).body).toMatchObject({
        error: { code: 'not_found', message: 'No push message nope.' },
      });
    });

    it('shows auth codes with the phone masked and never the code', async () => {
      await httpPost(service.app, 'AuthCodeSending', 'AuthCode', { code: '482913', phone: '0944123456' });
      const list = await api().get('/outbox/sms');
      expect(list.body.items).toEqual([
        expect.objectContaining({ phone: '+*********456', hasCode: true, status: 'queued' }),
      ]);
      expect(JSON.stringify(list.body)).not.toContain('482913');
      expect(JSON.stringify(list.body)).not.toContain('944123456');
      expect((await api().get('/outbox/sms?studentId=1')).status).toBe(400);
    });

    it('re-sends every dead message of a channel and reports the statistics', async () => {
      await httpPost(service.app, 'NotificationNotes', 'SendNotificationType', {
        id: '1001',
        baseUrlSchool: 'https://school-a.example',
        TypeNotfication: 'absence',
      });
      await service.testStore.query("update push_notifications set status = 'dead'");
      expect((await api().get('/outbox/stats')).body.channels[0]).toMatchObject({
        channel: 'push',
        counts: { dead: 1 },
      });
      expect((await api().post('/outbox/push/resend-dead')).body).toEqual({ channel: 'push', requeued: 1 });
    });
  });

  describe('OpenAPI document', () => {
    interface Operation {
      readonly parameters: readonly { readonly name: string; readonly in: string }[];
    }

    it('is served without a token and describes every route, each of which answers', async () => {
      const res = await request(service.app).get(`${BASE}/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      const doc = res.body as {
        openapi: string;
        paths: Record<string, Record<string, Operation>>;
        components: { schemas: Record<string, unknown> };
      };
      expect(doc.openapi).toBe('3.1.0');
      expect(Object.keys(doc.components.schemas)).toEqual(
        expect.arrayContaining([
          'School',
          'Student',
          'Device',
          'Note',
          'Absence',
          'Error',
          'PushMessage',
          'SmsMessage',
        ]),
      );
      for (const [, name] of JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)) {
        expect(doc.components.schemas).toHaveProperty(name);
      }

      const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => ({ path, method, op })),
      );
      // Five collections of six routes, a school's event subscription's three, five outbox routes, the audit
      // listing, and queueing and cancelling a notification.
      expect(operations).toHaveLength(41);
      const calls = api() as unknown as Record<string, (path: string, body?: unknown) => request.Test>;
      for (const { path, method, op } of operations) {
        expect(
          op.parameters
            .filter((p) => p.in === 'path')
            .map((p) => `{${p.name}}`)
            .sort(),
        ).toEqual((path.match(/\{\w+\}/g) ?? []).sort());
        const concrete = path.replace('{channel}', 'push').replace(/\{\w+\}/g, 'x');
        const answer = await calls[method](concrete, {});
        expect(answer.status).not.toBe(405);
        expect(String(answer.body?.error?.message ?? '')).not.toMatch(/^No admin route/);
      }
    });
  });
});

describe('admin API turned off', () => {
  it('answers 404 in JSON, saying how to turn it on', async () => {
    const service = await startOperatedService(sqliteVariant(), { ADMIN_TOKEN: '' });
    try {
      const res = await request(service.app)
        .get(`${BASE}/students`)
        .set('Authorization', 'Bearer anything-at-all-here');
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({
        code: 'admin_api_off',
        message: 'The admin API is off: set ADMIN_TOKEN to turn it on.',
      });
    } finally {
      await service.stop();
    }
  });
});
