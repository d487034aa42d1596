// What each part of the service needs of the store: one narrow type per
// consumer, so that a part can use only what it was given and a test can
// stand in for the store with just that. The operations' role is `Store`
// (types.ts); delivery, readiness, the access limits and the metrics declare
// theirs beside their own code (DeliveryStore, ReadinessSource, …), which
// the opened store provides too. Nothing outside src/store names the class.
import type { SqlStore } from './sql-store';

/** The admin API: records, the outbox, the audit trail (src/admin). */
export type AdminStore = Pick<
  SqlStore,
  | 'getRecord'
  | 'listRecords'
  | 'changeRecord'
  | 'deleteRecord'
  | 'listOutbox'
  | 'getOutboxMessage'
  | 'outboxStats'
  | 'requeueOutboxMessage'
  | 'requeueDeadOutboxMessages'
  | 'listAuditEntries'
>;

/** The importer and the exporter (src/import). */
export type ImportStore = Pick<SqlStore, 'importDataSet' | 'existingKeys' | 'readDataSet'>;

/** `npm run outbox` (src/cli/outbox.ts): listing, re-queueing and pruning the outbox. */
export type OutboxCommandStore = Pick<
  SqlStore,
  'listPushNotifications' | 'listAuthCodeMessages' | 'outboxStats' | 'requeueOutboxMessage' | 'requeueDeadOutboxMessages' | 'pruneOutbox'
>;

/** Loading the demo data into an empty embedded store. */
export type DemoDataStore = Pick<SqlStore, 'writeDataSet'>;

/**
 * The store as openStore() opens it: every role above and those the other
 * parts declare, and closing it. Whoever opens it (the service, a command)
 * hands each part its own role.
 */
export type OpenedStore = Pick<SqlStore, keyof SqlStore>;
