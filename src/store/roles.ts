// The store by role (docs/design.md#storage): one object per kind of
// consumer, all over one shared core (core.ts), so that a part is handed
// only the role it uses and a test can stand in for that role alone. The
// operations' view is `Store` (types.ts: the records they read and the
// outbox they queue into); delivery, readiness, the access limits and the
// metrics declare the little they need beside their own code
// (DeliveryStore, ReadinessSource, …), which these roles provide.
import type { AccessStore } from './audit-and-counters/access-role';
import type { AdminStore } from './admin-role';
import type { ConsoleStore } from './console-role';
import type { DataSetStore } from './data-set/data-set-role';
import type { MigrationStatus } from './migrations/migration-status';
import type { Outbox } from './outbox/outbox-role';
import type { Records } from './types';

export type { AccessStore, AdminStore, ConsoleStore, DataSetStore, Outbox };

/** The store as a whole: is it there, is its schema current, and closing it. */
export interface StoreLifecycle {
  /** True when the store answers a trivial query; never throws (a readiness probe wants a yes or no). */
  ping(): Promise<boolean>;
  /** Which migrations are applied; readiness wants `current`. */
  migrationStatus(): Promise<MigrationStatus>;
  /**
   * Refuses new calls of every role at once (StoreError "unavailable"), lets
   * those under way finish, then releases the database. Safe to repeat.
   */
  close(): Promise<void>;
}

/**
 * The store as openStore() opens it: its roles, and its lifecycle. Whoever
 * opens it (the service, a command) hands each part its own role.
 */
export interface OpenedStore {
  /** What the operations read. */
  readonly records: Records;
  /** What the operations queue, and the delivery worker's side of the queue. */
  readonly outbox: Outbox;
  /** The whole data set in and out (import, export, demo data). */
  readonly dataSet: DataSetStore;
  /** Call counters and the audit trail's writes (src/access). */
  readonly access: AccessStore;
  /** Records one by one, the outbox's messages and the audit trail, for operators (src/admin, `npm run outbox`). */
  readonly admin: AdminStore;
  /** The operators' console: its accounts, sessions and overview (src/console). */
  readonly console: ConsoleStore;
  readonly lifecycle: StoreLifecycle;
}

/** The importer and the exporter (src/import). */
export type ImportStore = Pick<DataSetStore, 'importDataSet' | 'existingKeys' | 'readDataSet'>;

/** Loading the demo data into an empty embedded store. */
export type DemoDataStore = Pick<DataSetStore, 'writeDataSet'>;
