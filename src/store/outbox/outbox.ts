import type { Selectable } from 'kysely';
import { parseResolvedOptions, type ResolvedOptions } from '../../domain/message-options';
import type { AuthCodeMessagesTable, OutboxStatus, PushNotificationsTable } from '../database';
import type { NewPushNotification } from '../types';

export interface OutboxFilter {
  status?: OutboxStatus;
  /** Most rows to return, oldest first. */
  limit?: number;
}

interface OutboxRow {
  id: string;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: string;
  lockedUntil: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
}

/** A push notification as stored: what was queued, and how its delivery stands. */
export interface PushNotificationRow extends OutboxRow, Omit<NewPushNotification, 'options' | 'dueAt'> {
  /** Its message options as resolved when it was queued; null for one queued before there were any. */
  options: ResolvedOptions | null;
  /** Held through quiet hours or scheduled, never tried yet: when it becomes due; null otherwise. */
  heldUntil: string | null;
}

/**
 * A message never tried whose due time is later than its last change was
 * held (quiet hours) or scheduled when queued; a retry is `failed`, and a
 * re-send is due when it is changed.
 */
export function heldUntil(
  row: Pick<DeliveryColumns, 'status' | 'attempts' | 'next_attempt_at' | 'updated_at'>,
): string | null {
  return row.status === 'queued' && Number(row.attempts) === 0 && row.next_attempt_at > row.updated_at
    ? row.next_attempt_at
    : null;
}

export interface AuthCodeMessageRow extends OutboxRow {
  phone: string;
  /** Null once the message was delivered or gave up. */
  code: string | null;
  callerAddress: string | null;
}

/** The delivery columns of a message just queued: due now, never tried. */
export function queuedColumns(now: string): {
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: string;
  created_at: string;
  updated_at: string;
} {
  return { status: 'queued', attempts: 0, next_attempt_at: now, created_at: now, updated_at: now };
}

type DeliveryColumns = Pick<
  Selectable<PushNotificationsTable>,
  | 'id'
  | 'status'
  | 'attempts'
  | 'next_attempt_at'
  | 'locked_until'
  | 'last_error'
  | 'created_at'
  | 'updated_at'
  | 'sent_at'
>;

/** The delivery columns both outbox tables share. */
function toOutboxRow(row: DeliveryColumns): OutboxRow {
  return {
    id: row.id,
    status: row.status,
    attempts: Number(row.attempts),
    nextAttemptAt: row.next_attempt_at,
    lockedUntil: row.locked_until,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    sentAt: row.sent_at,
  };
}

export function toPushNotificationRow(row: Selectable<PushNotificationsTable>): PushNotificationRow {
  return {
    ...toOutboxRow(row),
    deviceId: row.device_id,
    studentId: row.student_id,
    type: row.type,
    title: row.title,
    body: row.body,
    data: parseData(row.data),
    options: parseResolvedOptions(row.options),
    heldUntil: heldUntil(row),
  };
}

export function toAuthCodeMessageRow(row: Selectable<AuthCodeMessagesTable>): AuthCodeMessageRow {
  return { ...toOutboxRow(row), phone: row.phone, code: row.code, callerAddress: row.caller_address };
}

// Written by enqueuePushNotification from a string map; anything else means
// the row was edited by hand, and an empty map is the safe reading.
export function parseData(text: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const data: Record<string, string> = {};
    // Once a claimed row: a loop over the keys, not an array of entries (docs/delivery.md#cpu-per-push).
    for (const key of Object.keys(parsed)) {
      const value: unknown = (parsed as Record<string, unknown>)[key];
      if (typeof value === 'string') data[key] = value;
    }
    return data;
  } catch {
    return {};
  }
}
