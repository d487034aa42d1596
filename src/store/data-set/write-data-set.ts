import { sql, type Kysely, type RawBuilder } from 'kysely';
import { COLLECTION_OF, LINKS, type CollectionLink } from '../collections';
import { collectionTables, type LooseRow } from '../collections/collection-tables';
import type { StoreDatabase } from '../database';
import { InvalidDataSetError } from './data-set-values';
import { writeSubscriptionChanges } from './event-subscriptions';
import type { DataSetCollection, DataSetCounts, WriteDataSetOptions } from './data-set';
import type { NormalisedDataSet, UpsertRecord } from './normalise-data-set';

// Rows per INSERT: far below both dialects' bound-parameter limits (SQLite
// 32766, PostgreSQL 65535) at ten columns a row.
const BATCH_ROWS = 500;

/**
 * Upserts a checked data set in dependency order; call inside a transaction.
 * An update sets the required columns (collections/) and the optional ones
 * the records gave.
 */
export async function writeNormalisedDataSet(
  db: Kysely<StoreDatabase>,
  data: NormalisedDataSet,
  options: WriteDataSetOptions = {},
): Promise<DataSetCounts> {
  const progress = (collection: DataSetCollection, total: number) => (written: number) =>
    options.onProgress?.(collection, written, total);
  // Every write of records comes through here (the admin API, the console's
  // edits, imports, the seeding, the demo data), so this one check holds the
  // links for all of them.
  for (const link of LINKS) if (link.onDelete !== 'keep') await assertLinkKnown(db, data, link);

  // A school's clock and options change only when the record gives them (an older file leaves them be).
  await upsertInBatches(data.schools, progress('schools', data.schools.length), async (rows, given) => {
    await db
      .insertInto('schools')
      .values(rows)
      .onConflict((oc) =>
        oc.column('key').doUpdateSet(fromExcluded([...COLLECTION_OF.schools.requiredColumns, ...given])),
      )
      .execute();
  });

  // Before anything that may queue events: a school's subscription follows its record.
  await writeSubscriptionChanges(db, data.eventSubscriptions, data.now);

  await upsertInBatches(data.devices, progress('devices', data.devices.length), async (rows, given) => {
    await db
      .insertInto('devices')
      .values(rows)
      .onConflict((oc) =>
        given.length === 0
          ? oc.column('id').doNothing()
          : // updated_at records a real change only, so re-importing the same devices is a no-op.
            oc
              .column('id')
              .doUpdateSet(fromExcluded([...given, 'updated_at']))
              .where(anyChanged('devices', given)),
      )
      .execute();
  });

  await upsertInBatches(data.students, progress('students', data.students.length), async (rows, given) => {
    await db
      .insertInto('students')
      .values(rows)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet(fromExcluded([...COLLECTION_OF.students.requiredColumns, ...given])),
      )
      .execute();
  });

  await upsertInBatches(data.notes, progress('notes', data.notes.length), async (rows, given) => {
    await db
      .insertInto('notes')
      .values(rows)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          ...fromExcluded([...COLLECTION_OF.notes.requiredColumns, ...given.filter((c) => c !== 'read_at')]),
          ...(given.includes('read_at') ? { read_at: keptWhileUnchanged('notes', 'state', 'read_at') } : {}),
        }),
      )
      .execute();
  });

  await upsertInBatches(data.absences, progress('absences', data.absences.length), async (rows, given) => {
    await db
      .insertInto('absences')
      .values(rows)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          ...fromExcluded([...COLLECTION_OF.absences.requiredColumns, ...given.filter((c) => c !== 'seen_at')]),
          ...(given.includes('seen_at') ? { seen_at: keptWhileUnchanged('absences', 'seen', 'seen_at') } : {}),
        }),
      )
      .execute();
  });

  return {
    schools: data.schools.length,
    students: data.students.length,
    devices: data.devices.length,
    notes: data.notes.length,
    absences: data.absences.length,
  };
}

// A `refuse` or `cascade` link (collections/): the named record must be
// stored or in the data set. A school's foreign key would refuse the same
// rows, but only with the driver's words, and a note's or an absence's
// student has none; the importer and the admin API want to point at the field.
async function assertLinkKnown(
  db: Kysely<StoreDatabase>,
  data: NormalisedDataSet,
  link: CollectionLink,
): Promise<void> {
  const { table, keyColumn } = COLLECTION_OF[link.to];
  const rowsOf = (collection: DataSetCollection): readonly UpsertRecord<LooseRow>[] => data[collection];
  const inDataSet = new Set(rowsOf(link.to).map((record) => record.row[keyColumn]));
  const firstUse = new Map<string, string>();
  for (const { row, path } of rowsOf(link.from)) {
    const key = row[link.column];
    if (typeof key === 'string' && !inDataSet.has(key) && !firstUse.has(key)) firstUse.set(key, path);
  }
  const keys = [...firstUse.keys()];
  for (let start = 0; start < keys.length; start += BATCH_ROWS) {
    const stored = await collectionTables(db)
      .selectFrom(table)
      .select(keyColumn)
      .where(keyColumn, 'in', keys.slice(start, start + BATCH_ROWS))
      .execute();
    for (const row of stored) firstUse.delete(String(row[keyColumn]));
  }
  const [missing] = firstUse;
  if (missing !== undefined) {
    const [key, path] = missing;
    throw new InvalidDataSetError(
      `${path}.${link.field}`,
      `names a ${COLLECTION_OF[link.to].noun} that is neither stored nor in the data set (${key}).`,
    );
  }
}

// Records that set the same optional columns share one statement shape.
async function upsertInBatches<Row>(
  records: readonly UpsertRecord<Row>[],
  report: (written: number) => void,
  write: (rows: Row[], given: readonly string[]) => Promise<void>,
): Promise<void> {
  const groups = new Map<string, UpsertRecord<Row>[]>();
  for (const record of records) {
    const signature = record.given.join(',');
    const group = groups.get(signature);
    if (group === undefined) groups.set(signature, [record]);
    else group.push(record);
  }
  let written = 0;
  for (const group of groups.values()) {
    const given = group[0]?.given ?? [];
    for (let start = 0; start < group.length; start += BATCH_ROWS) {
      const batch = group.slice(start, start + BATCH_ROWS);
      await write(
        batch.map((record) => record.row),
        given,
      );
      written += batch.length;
      report(written);
    }
  }
}

// `excluded.c` is the incoming value of column c, so it always has c's type;
// `never` lets Kysely accept it for whichever column it is assigned to.
function fromExcluded(columns: readonly string[]): Record<string, RawBuilder<never>> {
  const set: Record<string, RawBuilder<never>> = {};
  for (const column of columns) set[column] = sql.ref<never>(`excluded.${column}`);
  return set;
}

function anyChanged(table: string, columns: readonly string[]): RawBuilder<boolean> {
  const tests = columns.map(
    (column) => sql`${sql.ref(`${table}.${column}`)} is distinct from ${sql.ref(`excluded.${column}`)}`,
  );
  return sql<boolean>`(${sql.join(tests, sql` or `)})`;
}

/** The stored mark time survives a re-import that leaves the state as it is. */
function keptWhileUnchanged(table: string, state: string, markedAt: string): RawBuilder<never> {
  return sql<never>`case when ${sql.ref(`${table}.${state}`)} = ${sql.ref(`excluded.${state}`)} then ${sql.ref(
    `${table}.${markedAt}`,
  )} else ${sql.ref(`excluded.${markedAt}`)} end`;
}
