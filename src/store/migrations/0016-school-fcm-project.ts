import type { Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// schools.fcm_project: the FCM project a school's pushes go through
// (docs/delivery.md#fcm-credentials); null for every school stored before,
// which keeps them on the default project.
export const schoolFcmProjectMigration: StoreMigration = {
  async up(db, dialect) {
    await db.schema.alterTable('schools').addColumn('fcm_project', textType(dialect)).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('schools').dropColumn('fcm_project').execute();
  },
};
