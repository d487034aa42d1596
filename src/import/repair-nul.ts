// `npm run import -- --repair-nul [--dry-run]` (docs/operating.md#records-holding-a-nul):
// records that an import wrote into SQLite before the fields refused a NUL
// (docs/design.md#a-nul-in-a-parameter) can be read but not saved again
// unchanged, in the console or the admin API, and PostgreSQL could not hold
// them. This finds them and writes each back with its NULs dropped, through
// the import's own checks and report, so nothing reaches the store that an
// import would refuse. A NUL carries nothing in a name or a text (it is a
// C string's end or a fixed-width field's padding from the system exported
// from), and U+FFFD in its place would reach a parent's notification.
import { COLLECTION_OF, COLLECTIONS, type DataSetCollection, type ImportStore } from '../store';
import { echoed } from '../shared/echo';
import { createSourceImporter, type FileReport } from './importer';
import type { Source, SourceRow } from './source';

/** A stored record with a NUL in at least one of its fields. */
export interface NulRecord {
  readonly collection: DataSetCollection;
  /** Its key, each control character written U+FFFD (it is printed on a terminal). */
  readonly key: string;
  /** The fields holding a NUL, in the record's order. */
  readonly fields: readonly string[];
  /** Its key holds one: no call, console page or admin route can name it, and dropping the NUL would make another record. */
  readonly keyHoldsNul: boolean;
}

export interface NulRepair {
  /** Every record found, numbered from 1 in this order in the report (`record N`). */
  readonly found: readonly NulRecord[];
  /** The import's report of the records written back (checked only, with dryRun); null when there were none to write. */
  readonly report: FileReport | null;
}

/** The name the report gives the records written back. */
export const REPAIR_SOURCE = 'stored records holding a NUL';

const holdsNul = (value: unknown): boolean =>
  typeof value === 'string'
    ? value.includes('\0')
    : typeof value === 'object' &&
      value !== null &&
      Object.entries(value).some(([k, v]) => k.includes('\0') || holdsNul(v));

const withoutNul = (value: unknown): unknown =>
  typeof value === 'string'
    ? value.replaceAll('\0', '')
    : Array.isArray(value)
      ? value.map(withoutNul)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replaceAll('\0', ''), withoutNul(v)]))
        : value;

export async function repairNulRecords(
  store: ImportStore,
  options: { readonly dryRun?: boolean; readonly now?: () => Date } = {},
): Promise<NulRepair> {
  const data = await store.readDataSet();
  const found: NulRecord[] = [];
  const rows: Partial<Record<DataSetCollection, SourceRow[]>> = {};
  for (const collection of COLLECTIONS) {
    const keyField = COLLECTION_OF[collection].key;
    for (const stored of data[collection] as readonly Readonly<Record<string, unknown>>[]) {
      const fields = Object.keys(stored).filter((field) => holdsNul(stored[field]));
      if (fields.length === 0) continue;
      const keyHoldsNul = fields.includes(keyField);
      found.push({ collection, key: echoed(String(stored[keyField])), fields, keyHoldsNul });
      if (keyHoldsNul) continue;
      // A school's eventsUrl goes back only when it held the NUL: left out, its subscription (and secret) stays.
      const record = Object.fromEntries(
        Object.entries(stored)
          .filter(([field]) => field !== 'eventsUrl' || fields.includes(field))
          .map(([field, value]) => [field, fields.includes(field) ? withoutNul(value) : value]),
      );
      (rows[collection] ??= []).push({ line: found.length, record });
    }
  }
  if (Object.keys(rows).length === 0) return { found, report: null };
  const source: Source = { file: REPAIR_SOURCE, rows, unreadable: [], notes: [] };
  const importer = createSourceImporter(store, { dryRun: options.dryRun, now: options.now });
  return { found, report: await importer.importSource(source, 'record') };
}

/** The records found, one line each (fields named, never their values), before the import's report of them. */
export function formatNulRecords(found: readonly NulRecord[]): string {
  if (found.length === 0) return 'No stored record holds a NUL character.\n';
  const lines = [`Stored records holding a NUL character: ${found.length}`];
  found.forEach((r, i) =>
    lines.push(
      `  record ${i + 1} (${r.collection}) ${r.key}: ${r.fields.join(', ')}${
        r.keyHoldsNul ? ' (its key holds the NUL: left as it is; see docs/operating.md)' : ''
      }`,
    ),
  );
  return `${lines.join('\n')}\n`;
}
