import type { Migration } from 'kysely';
import { initialMigration } from './0001-initial';
import { deliveryMigration } from './0002-delivery';
import { deliveryScaleMigration } from './0003-delivery-scale';
import { accessMigration } from './0004-access';
import { outboxIndexesMigration } from './0005-outbox-indexes';
import { auditBoundsMigration } from './0006-audit-bounds';
import { traceContextMigration } from './0007-trace-context';
import { consoleMigration } from './0008-console';
import { smsSendStartedMigration } from './0009-sms-send-started';
import { messageListMigration } from './0010-message-list';
import { eventsMigration } from './0011-events';
import { arabicFoldingMigration } from './0012-arabic-folding';
import { messageOptionsQuietHoursMigration } from './0013-message-options-quiet-hours';
import { deadLetterDismissalMigration } from './0014-dead-letter-dismissal';
import { refusedCallsMigration } from './0015-refused-calls';
import { schoolFcmProjectMigration } from './0016-school-fcm-project';
import { consoleJobsMigration } from './0017-console-jobs';
import { messageListIndexesMigration } from './0018-message-list-indexes';
import { consoleAccountTimeZoneMigration } from './0019-console-account-time-zone';

import { outboxSettledIndexMigration } from './0020-outbox-settled-index';
import type { StoreDialect, StoreMigration } from './migration';

// Every migration, imported statically so that the compiled dist/ needs no
// directory scan. Kysely applies them in name order: append the next number below.
const MIGRATIONS: Readonly<Record<string, StoreMigration>> = {
  '0001_initial': initialMigration,
  '0002_delivery': deliveryMigration,
  '0003_delivery_scale': deliveryScaleMigration,
  '0004_access': accessMigration,
  '0005_outbox_indexes': outboxIndexesMigration,
  '0006_audit_bounds': auditBoundsMigration,
  '0007_trace_context': traceContextMigration,
  '0008_console': consoleMigration,
  '0009_sms_send_started': smsSendStartedMigration,
  '0010_message_list': messageListMigration,
  '0011_events': eventsMigration,
  '0012_arabic_folding': arabicFoldingMigration,
  '0013_message_options_quiet_hours': messageOptionsQuietHoursMigration,
  '0014_dead_letter_dismissal': deadLetterDismissalMigration,
  '0015_refused_calls': refusedCallsMigration,
  '0016_school_fcm_project': schoolFcmProjectMigration,
  '0017_console_jobs': consoleJobsMigration,
  '0018_message_list_indexes': messageListIndexesMigration,
  '0019_console_account_time_zone': consoleAccountTimeZoneMigration,

  '0020_outbox_settled_index': outboxSettledIndexMigration,
};

/** The migration set bound to one dialect, as Kysely's Migrator wants it. */
export function migrationsFor(dialect: StoreDialect): Record<string, Migration> {
  const bound: Record<string, Migration> = {};
  for (const [name, migration] of Object.entries(MIGRATIONS)) {
    bound[name] = {
      up: (db) => migration.up(db, dialect),
      down: (db) => migration.down(db, dialect),
    };
  }
  return bound;
}

export type { StoreDialect } from './migration';
