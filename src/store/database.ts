// Row shapes of the tables as both dialects return them. Timestamps are
// ISO-8601 UTC text so that ordering and comparison are byte-wise identical on
// SQLite and PostgreSQL; flags are integers 0/1 for the same reason. They are
// type aliases rather than interfaces so that a row is also a map of column to
// value (Record<string, unknown>), as code written once for every collection
// reads it (collections/collection-tables.ts), without a cast.
import type { Generated, GeneratedAlways } from 'kysely';
import type { NoteState } from './types';

export type DevicePlatform = 'android' | 'ios' | 'web';

/** Delivery state of an outbox row (docs/design.md#domain). */
export type OutboxStatus = 'queued' | 'sending' | 'sent' | 'failed' | 'dead' | 'uncertain';

export type SchoolsTable = {
  key: string;
  base_url: string;
  name: string;
  /** IANA time zone (migration 0013). */
  time_zone: string;
  /** `HH:MM-HH:MM` in time_zone; null: none (migration 0013). */
  quiet_hours: string | null;
  /** JSON: the school's message options per type; null: none (migration 0013). */
  push_options: string | null;
  /** The FCM project of its pushes; null: the default (migration 0016). */
  fcm_project: string | null;
};

export type StudentsTable = {
  id: string;
  school_key: string;
  full_name: string;
  device_id: string | null;
  active: string;
  class_id: string | null;
};

export type DevicesTable = {
  id: string;
  push_token: string | null;
  platform: DevicePlatform | null;
  updated_at: string;
};

export type NotesTable = {
  id: string;
  student_id: string;
  type: string;
  subject_id: string | null;
  class_id: string | null;
  text: string;
  note_date: string;
  badge: string | null;
  state: NoteState;
  read_at: string | null;
};

export type AbsencesTable = {
  id: string;
  student_id: string;
  absence_date: string;
  type: string;
  reason: string | null;
  seen: number;
  seen_at: string | null;
};

/**
 * The columns both outbox tables carry: a message's state, its attempts and
 * their lease, the provider's id and the trace it was queued under.
 */
type OutboxStateColumns = {
  id: string;
  status: OutboxStatus;
  attempts: Generated<number>;
  next_attempt_at: string;
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  /** Set by each claim (migration 0002). */
  claim_token: string | null;
  provider_message_id: string | null;
  /** The W3C traceparent of the span that queued it; null without tracing (migration 0007). */
  traceparent: string | null;
  /** When an operator dismissed it from the dead letters (migration 0014); null: never. */
  dismissed_at: string | null;
};

export type PushNotificationsTable = OutboxStateColumns & {
  device_id: string;
  student_id: string;
  type: string;
  title: string;
  body: string;
  /** JSON object of string values. */
  data: string;
  /** The student's school when it was queued; null for a student unknown then (migration 0010). */
  school_key: string | null;
  /** JSON: the message options resolved when it was queued (src/domain/message-options.ts); null before migration 0013. */
  options: string | null;
};

export type AuthCodeMessagesTable = OutboxStateColumns & {
  phone: string;
  code: string | null;
  caller_address: string | null;
  /** When the current attempt was handed to a gateway that cannot drop a repeat (migration 0009); null before that. */
  send_started_at: string | null;
  /** The phone's last 4 digits, computed by the database (migration 0010); never written. */
  phone_suffix: GeneratedAlways<string>;
};

/** One read of personal data, allowed or refused (migration 0004). */
export type AccessAuditTable = {
  id: string;
  at: string;
  address: string | null;
  user: string | null;
  endpoint: string;
  operation: string;
  subject_kind: string | null;
  subject: string | null;
  outcome: 'allowed' | 'refused';
  reason: string | null;
  /** The full length of a subject kept cut, else null (migration 0006). */
  subject_length: number | null;
  /** SHA-256 (hex) of a subject kept cut, else null (migration 0006). */
  subject_sha256: string | null;
  /** On a summary entry, the refusals it stands for (migration 0006). */
  omitted: number | null;
};

/** The call budgets' merged count per counter and window (migration 0004). */
export type AccessCountersTable = {
  counter: string;
  window_start: string;
  window_end: string;
  count: number;
};

/** An operator of the console (migration 0008, docs/console.md). */
export type ConsoleAccountsTable = {
  name: string;
  password_hash: string;
  role: string;
  disabled: number;
  created_at: string;
  updated_at: string;
  /** The zone the operator's times are shown in; null: the console's default (migration 0019). */
  time_zone: string | null;
};

/** A signed-in browser; `id` is the SHA-256 (hex) of the cookie's value (migration 0008). */
export type ConsoleSessionsTable = {
  id: string;
  account: string;
  csrf: string;
  created_at: string;
  last_seen_at: string;
};

/** One delivery attempt of an outbox message (migration 0008). */
export type OutboxAttemptsTable = {
  id: string;
  channel: string;
  message_id: string;
  attempt: number;
  at: string;
  outcome: string;
  code: string | null;
  error: string | null;
  next_attempt_at: string | null;
};

/** A running delivery worker's heartbeat (migration 0008). */
export type DeliveryWorkersTable = {
  id: string;
  started_at: string;
  beat_at: string;
};

/** A school's subscription to delivery events (migration 0011). */
export type EventSubscriptionsTable = {
  school_key: string;
  url: string;
  /** `whsec_` and the base64 key; never leaves the store but to sign. */
  secret: string;
  state: EventSubscriptionState;
  /** When its deliveries began to fail without a success since; null while they succeed. */
  failing_since: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
};

export type EventSubscriptionState = 'active' | 'failing' | 'disabled';

/** One delivery event to a school's system (migration 0011). */
export type EventOutboxTable = {
  /** The webhook-id: `msg_`, the message's id and seq. */
  id: string;
  school_key: string;
  message_id: string;
  /** The event's place among its message's events. */
  seq: number;
  type: string;
  /** The JSON body posted, as written. */
  body: string;
  status: OutboxStatus;
  attempts: Generated<number>;
  next_attempt_at: string;
  locked_until: string | null;
  claim_token: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
};

/** A refused SendNotificationType or AuthCode call (migration 0015). */
export interface RefusedCallsTable {
  id: string;
  created_at: string;
  /** `SendNotificationType` or `AuthCode`. */
  operation: string;
  /** The channel the call would have queued on: `push` or `sms`. */
  channel: string;
  /** The fault's code: `no_device`, `no_token`, `auth_code_limit_phone`, … */
  reason: string;
  student_id: string | null;
  school_key: string | null;
  /** The notification type asked for. */
  type: string | null;
  /** Masked as the logs mask it (`+*********459`); never the whole number. */
  phone: string | null;
  /** The phone's last 4 digits, for the console's search. */
  phone_suffix: string | null;
}

/** A roster uploaded in the console, kept for its import (migration 0017, docs/console.md#importing-a-roster). */
export interface ConsoleUploadsTable {
  id: string;
  account: string;
  file_name: string;
  collection: string | null;
  size: number;
  /** How many rows of console_upload_chunks hold the file. */
  chunks: number;
  uploaded_at: string;
}

/** One piece (about 1 MiB) of an uploaded file, `seq` from 0 (migration 0017). */
export interface ConsoleUploadChunksTable {
  upload_id: string;
  seq: number;
  /** When it was written: a chunk of an upload that never finished is deleted by its age. */
  stored_at: string;
  data: Buffer;
}

/** The dry run (`check`) or the apply of an upload, claimed by one node at a time (migration 0017). */
export interface ConsoleImportJobsTable {
  /** The upload's id, `:` and the kind. */
  id: string;
  upload_id: string;
  kind: string;
  state: string;
  /** 1 while queued or running, null after: unique, so one job at a time on every node. */
  active: number | null;
  stage: string;
  done: Generated<number>;
  total: Generated<number>;
  report: string | null;
  attempts: Generated<number>;
  locked_until: string | null;
  claim_token: string | null;
  created_at: string;
  updated_at: string;
}

/** The console's sign-in throttle: one key's failures in its current window (migration 0017). */
export interface ConsoleSignInFailuresTable {
  key: string;
  window_start: string;
  count: number;
}

/** An address exempt from an account's failure count until `until` (migration 0017). */
export interface ConsoleSignInTrustTable {
  key: string;
  until: string;
}

export interface StoreDatabase {
  schools: SchoolsTable;
  students: StudentsTable;
  devices: DevicesTable;
  notes: NotesTable;
  absences: AbsencesTable;
  push_notifications: PushNotificationsTable;
  auth_code_messages: AuthCodeMessagesTable;
  access_audit: AccessAuditTable;
  access_counters: AccessCountersTable;
  console_accounts: ConsoleAccountsTable;
  console_sessions: ConsoleSessionsTable;
  outbox_attempts: OutboxAttemptsTable;
  delivery_workers: DeliveryWorkersTable;
  event_subscriptions: EventSubscriptionsTable;
  event_outbox: EventOutboxTable;
  refused_calls: RefusedCallsTable;
  console_uploads: ConsoleUploadsTable;
  console_upload_chunks: ConsoleUploadChunksTable;
  console_import_jobs: ConsoleImportJobsTable;
  console_sign_in_failures: ConsoleSignInFailuresTable;
  console_sign_in_trust: ConsoleSignInTrustTable;
}
