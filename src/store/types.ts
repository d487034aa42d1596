// The store's view of the domain (docs/design.md#domain). Operations depend on
// this interface only; they never see SQL, and the store never sees XML.
import type { OptionsByType, ResolvedOptions } from '../domain/message-options';
import type { z } from 'zod';
import type { COLLECTION_OF } from './collections';
import type { AuthCodeAdmission, AuthCodeLimit } from './outbox/auth-code-admission';

export interface StudentSummary {
  studentId: string;
  fullName: string;
  deviceId: string | null;
  /** One character: `1` active, `0` inactive. */
  active: string;
}

export interface StudentPlacement {
  studentId: string;
  fullName: string;
  schoolKey: string;
  deviceId: string | null;
  /** The push token of the student's device; null when none is registered. */
  pushToken: string | null;
  /** The school's IANA time zone (UTC when the school is not stored). */
  schoolTimeZone: string;
  /** The school's quiet hours, `HH:MM-HH:MM` in its zone; null: none. */
  quietHours: string | null;
  /** The school's message options per type; null: none. */
  pushOptions: OptionsByType | null;
}

export type NoteState = 'unread' | 'read';

// A record as the store gives it (the collection's fromRow): every field
// present, an optional one null when not set. The fields are the collection's
// (collections/), declared there once.
type StoredRecord<C extends keyof typeof COLLECTION_OF> = {
  -readonly [K in keyof z.output<(typeof COLLECTION_OF)[C]['fieldsSchema']>]-?: Exclude<
    z.output<(typeof COLLECTION_OF)[C]['fieldsSchema']>[K],
    undefined
  >;
};

/** A note; `date` is an ISO 8601 timestamp. */
export type NoteRecord = StoredRecord<'notes'>;

/** An absence; `date` is an ISO 8601 date (YYYY-MM-DD). */
export type AbsenceRecord = StoredRecord<'absences'>;

export interface NewPushNotification {
  deviceId: string;
  studentId: string;
  type: string;
  title: string;
  body: string;
  /** Key/value data carried by the push (all strings). */
  data: Record<string, string>;
  /** The student's school, which the caller has looked up; left out, the insert looks it up (migration 0010). */
  schoolKey?: string;
  /** When it may be sent (ISO time): later than now for a message held through quiet hours or scheduled; left out, now. */
  dueAt?: string;
  /** Its message options, resolved (src/domain/message-options.ts); left out, none. */
  options?: ResolvedOptions;
}

export interface NewAuthCodeMessage {
  /** E.164. */
  phone: string;
  code: string;
  /** Address of the caller that asked for the code (for abuse limits). */
  callerAddress: string | null;
}

/** A refused SendNotificationType or AuthCode call, as the console shows it (migration 0015). */
export interface NewRefusedCall {
  operation: 'SendNotificationType' | 'AuthCode';
  /** The fault's code: `no_device`, `no_token`, `student_unknown`, `auth_code_limit_phone`, … */
  reason: string;
  studentId: string | null;
  /** The school's key (schoolKey of the address the caller gave). */
  schoolKey: string | null;
  /** The notification type asked for. */
  type: string | null;
  /** The phone (AuthCode): the store keeps it masked and its last 4 digits, never the whole number. */
  phone: string | null;
}

/** What the operations read: the records role of the store. */
export interface Records {
  /**
   * Students of a school (by normalised key) whose active flag equals `active`,
   * by full name then id; the list itself when SQLite read it at once, as
   * getDeviceToken.
   */
  listStudentsOfSchool(schoolKey: string, active: string): StudentSummary[] | Promise<StudentSummary[]>;

  /**
   * The push token of a device; null when the device is unknown or has no
   * token. The token itself, not a promise, when SQLite read it at once
   * (core.ts, readSettled): GetTokenDevice's answer in the same turn.
   */
  getDeviceToken(deviceId: string): string | null | Promise<string | null>;

  /** Audit notes (type `audit`) of a class for a subject, newest first; at once when SQLite read them at once. */
  listAuditNotes(subjectId: string, classId: string): NoteRecord[] | Promise<NoteRecord[]>;

  /** In one transaction: mark unread notes of that type of that student read, then return all of them, newest first. */
  markNotesRead(studentId: string, noteType: string): Promise<NoteRecord[]>;

  /** In one transaction: read the student's absences newest first and mark them seen (the returned records show the state before). */
  listAbsencesMarkSeen(studentId: string): Promise<AbsenceRecord[]>;

  /** The student with its school key and device, or null when unknown. */
  findStudent(studentId: string): Promise<StudentPlacement | null>;
}

/** What the operations queue: the outbox role's front half (outbox/outbox-role.ts). */
export interface OutboxQueue {
  /** Write a queued push notification to the outbox; returns its id. */
  enqueuePushNotification(notification: NewPushNotification): Promise<string>;

  /** Queue an auth-code SMS unless an abuse limit is reached; counted and written in one transaction. */
  admitAuthCode(message: NewAuthCodeMessage, limits: readonly AuthCodeLimit[]): Promise<AuthCodeAdmission>;

  /** Records a refused call for the console (one insert; the caller's answer does not wait on more). */
  recordRefusedCall(call: NewRefusedCall): Promise<void>;
}

/** The operations' view of the store: what they read and what they queue, nothing else. */
export interface Store {
  readonly records: Records;
  readonly outbox: OutboxQueue;
}
