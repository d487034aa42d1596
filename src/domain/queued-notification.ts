// A notification as queueing answers it: SendNotificationType queues it
// (src/operations/queue-notification.ts), and the admin API's
// POST /admin/api/v1/notifications hands it on (src/admin/notification-routes.ts).

export interface QueuedNotification {
  readonly id: string;
  /** When it becomes due (ISO time). */
  readonly dueAt: string;
  /** Set when the school's quiet hours hold it: when they end. */
  readonly heldUntil: string | null;
}

/** Queued, or refused for the caller's mistake, with its code (`student_unknown`, `no_push_device`, …). */
export type QueueAnswer =
  | ({ readonly ok: true } & QueuedNotification)
  | { readonly ok: false; readonly code: string; readonly message: string };

/** Queues a notification to a student's device, not before `sendAt` when given. */
export type QueueNotification = (request: {
  readonly studentId: string;
  readonly type: string;
  readonly sendAt?: Date;
}) => Promise<QueueAnswer>;
