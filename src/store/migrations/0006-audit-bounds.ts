import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { textType } from './column-types';
import type { StoreMigration } from './migration';

// What an audit entry keeps (docs/access-limits.md#what-an-entry-keeps):
// - subject_length, subject_sha256: a subject longer than the longest valid
//   id of its kind is kept cut, with its full length and the SHA-256 (hex)
//   of the whole; both null for a subject kept whole;
// - omitted: set on a summary entry only, the refusals of one caller in one
//   minute that were counted instead of kept one by one
//   (src/access/refusal-allowance.ts).
// Entries written before are cut the same way here, a few at a time, so that
// no admin page has to carry a megabyte subject. The lengths are those of
// this migration's day: later changes to the collections do not reach back.
const SUBJECT_MAX: Readonly<Record<string, number>> = { school: 512, device: 128, student: 128, class: 64 };
const SUBJECT_MAX_ANY = 512;
const ADDRESS_MAX = 64;
const USER_MAX = 64;
/** Rows read at once: each may hold a subject of a megabyte or more. */
const BATCH = 20;

export const auditBoundsMigration: StoreMigration = {
  async up(db, dialect) {
    await db.schema.alterTable('access_audit').addColumn('subject_length', 'integer').execute();
    await db.schema.alterTable('access_audit').addColumn('subject_sha256', textType(dialect)).execute();
    await db.schema.alterTable('access_audit').addColumn('omitted', 'integer').execute();
    await cutLongSubjects(db);
    // Addresses and users are never long in practice; cutting them needs no hash.
    await sql`update access_audit set address = substr(address, 1, ${ADDRESS_MAX}) where length(address) > ${ADDRESS_MAX}`.execute(
      db,
    );
    await sql`update access_audit set ${sql.ref('user')} = substr(${sql.ref('user')}, 1, ${USER_MAX}) where length(${sql.ref('user')}) > ${USER_MAX}`.execute(
      db,
    );
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('access_audit').dropColumn('omitted').execute();
    await db.schema.alterTable('access_audit').dropColumn('subject_sha256').execute();
    await db.schema.alterTable('access_audit').dropColumn('subject_length').execute();
  },
};

interface LongSubject {
  readonly id: string;
  readonly subject: string;
}

async function cutLongSubjects(db: Kysely<unknown>): Promise<void> {
  const kinds = [
    ...Object.entries(SUBJECT_MAX).map(([kind, max]) => ({ kind, max })),
    { kind: null, max: SUBJECT_MAX_ANY },
  ];
  for (const { kind, max } of kinds) {
    const ofKind =
      kind === null
        ? sql`(subject_kind is null or subject_kind not in (${sql.join(Object.keys(SUBJECT_MAX))}))`
        : sql`subject_kind = ${kind}`;
    for (;;) {
      // A row cut no longer matches, so each pass reads the next ones.
      const { rows } =
        await sql<LongSubject>`select id, subject from access_audit where ${ofKind} and length(subject) > ${max} limit ${BATCH}`.execute(
          db,
        );
      if (rows.length === 0) break;
      for (const row of rows) {
        const kept = cut(row.subject, max);
        const hash = createHash('sha256').update(row.subject, 'utf8').digest('hex');
        await sql`update access_audit set subject = ${kept}, subject_length = ${row.subject.length}, subject_sha256 = ${hash} where id = ${row.id}`.execute(
          db,
        );
      }
    }
  }
}

/** At most `max` code units, never half a surrogate pair (as src/access/audit-bounds.ts cuts). */
function cut(text: string, max: number): string {
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}
