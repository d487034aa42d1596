// One stored collection described once: its fields (fields.ts), from which
// come the record's zod schema (admin API, OpenAPI, the store's check), the
// importer's and exporter's field lists, the row mapping both ways and the
// admin API's list filters; and its links to other collections, from which
// come the import's and the store's reference checks and what a delete does
// (index.ts).
import { z } from 'zod';
import type { StoreDatabase } from '../database';
import { FieldProblem, type Field } from './fields';

type Fields<T extends keyof StoreDatabase = keyof StoreDatabase> = Readonly<
  Record<string, Field<z.ZodType, keyof StoreDatabase[T] & string>>
>;
type Shape<F extends Readonly<Record<string, Field>>> = { -readonly [K in keyof F]: F[K]['schema'] };

export type Row = Record<string, unknown>;

/** A record as the store writes it: every column for an insert, and the optional ones the record set (the only ones an update overwrites). */
export interface RowToWrite {
  readonly row: Row;
  readonly given: readonly string[];
}

/** Columns that follow from the record rather than being one of its fields (a mark time, a normalised key). */
export type DerivedColumns = (record: Readonly<Record<string, unknown>>, now: string) => RowToWrite;

/**
 * A field that names a record of another collection by its key. What
 * deleting that record does says how strong the link is:
 * - `refuse`: refused while a record names it; every write must name a
 *   stored record (or one in the same data set);
 * - `cascade`: the records naming it go with it; every write must name a
 *   stored record (or one in the same data set), as for `refuse`;
 * - `keep`: the records keep the name, which need not be stored.
 */
export interface Reference {
  /** The collection named (a key of COLLECTION_OF, listed before this one). */
  readonly collection: string;
  readonly onDelete: 'refuse' | 'cascade' | 'keep';
}

/** A reference with its field and column. */
export interface Link extends Reference {
  readonly field: string;
  readonly column: string;
}

export interface CollectionSpec<T extends keyof StoreDatabase, F extends Fields<T>> {
  readonly name: string;
  /** Singular, for messages: `student`. */
  readonly noun: string;
  /** The OpenAPI component (`Student`). */
  readonly title: string;
  readonly table: T;
  /** The field that is the record's key, and its column. */
  readonly key: keyof F & string;
  readonly keyColumn: keyof StoreDatabase[T] & string;
  readonly fields: F;
  /** Fields that name a record of another collection. */
  readonly references?: { readonly [K in keyof F & string]?: Reference };
  readonly derived?: DerivedColumns;
}

// Without type arguments: any collection, as code that loops over them all sees it.
export interface Collection<
  T extends keyof StoreDatabase = keyof StoreDatabase,
  F extends Fields<T> = Readonly<Record<string, Field<z.ZodType, never>>>,
> extends CollectionSpec<T, F> {
  /** The record as the admin API takes and gives it; unknown fields are refused. */
  readonly schema: z.ZodObject<Shape<F>, z.core.$strict>;
  /** The same, dropping unknown fields: what the store checks (a JSON file may carry more; the admin API refuses them before). */
  readonly fieldsSchema: z.ZodObject<Shape<F>>;
  /** Every field, in the order of the CSV header and the export. */
  readonly fieldNames: readonly (keyof F & string)[];
  /** Fields a record (and a CSV header) must have. */
  readonly requiredFields: readonly (keyof F & string)[];
  /** Columns every update of a record sets: its required fields' but the key column (the optional ones only when given). */
  readonly requiredColumns: readonly string[];
  /** Record field → column. */
  readonly columns: Readonly<Record<string, string>>;
  /** The admin API's list filters: the fields marked `filter` (fields.ts), each optional. */
  readonly filters: z.ZodObject<Record<string, z.ZodType>, z.core.$strict>;
  /** The references, in field order. */
  readonly links: readonly Link[];
  /** A file's record with its values converted as the schema wants them (fields.ts); other keys are kept, and ignored. */
  readonly fromFile: (record: Readonly<Record<string, unknown>>) => Record<string, unknown>;
  /** The checked record (the schema's output) as a row; throws RowProblem for a value the store cannot keep (30 February). */
  readonly toRow: (record: Readonly<Record<string, unknown>>, now: string) => RowToWrite;
  readonly fromRow: (row: Row) => z.output<z.ZodObject<Shape<F>>>;
}

/** FieldProblem as thrown by toRow: the field it is about. */
export class RowProblem extends Error {
  override readonly name = 'RowProblem';

  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field} ${problem}`);
  }
}

// A field's column must be one of its table's (database.ts): a field added
// without its column, or with a misspelt one, does not compile.
export function defineCollection<T extends keyof StoreDatabase, F extends Fields<T>>(
  spec: CollectionSpec<T, F>,
): Collection<T, F> {
  const entries = Object.entries(spec.fields) as [keyof F & string, Field][];
  const shape = Object.fromEntries(entries.map(([name, f]) => [name, f.schema])) as Shape<F>;
  const schema = z.strictObject(shape).meta({ id: spec.title });
  return {
    ...spec,
    schema,
    fieldsSchema: z.object(shape),
    fieldNames: entries.map(([name]) => name),
    requiredFields: entries.filter(([, f]) => f.required).map(([name]) => name),
    requiredColumns: entries.filter(([, f]) => f.required && f.column !== spec.keyColumn).map(([, f]) => f.column),
    columns: Object.fromEntries(entries.map(([name, f]) => [name, f.column])),
    filters: z.strictObject(
      Object.fromEntries(entries.flatMap(([name, f]) => (f.filter === null ? [] : [[name, f.filter]]))),
    ),
    links: entries.flatMap(([name, f]) => {
      const reference = spec.references?.[name];
      return reference === undefined ? [] : [{ ...reference, field: name, column: f.column }];
    }),
    fromFile(record) {
      const converted: Record<string, unknown> = { ...record };
      for (const [name, f] of entries) if (Object.hasOwn(record, name)) converted[name] = f.fromFile(record[name]);
      return converted;
    },
    toRow(record, now) {
      const row: Row = {};
      const given: string[] = [];
      for (const [name, f] of entries) {
        let value: unknown;
        try {
          value = f.toColumn(record[name]);
        } catch (error) {
          if (error instanceof FieldProblem) throw new RowProblem(name, error.message);
          throw error;
        }
        row[f.column] = value === undefined ? f.default : value;
        if (!f.required && value !== undefined) given.push(f.column);
      }
      const derived = spec.derived?.(record, now);
      return derived === undefined
        ? { row, given }
        : { row: { ...row, ...derived.row }, given: [...given, ...derived.given] };
    },
    fromRow(row) {
      return Object.fromEntries(entries.map(([name, f]) => [name, f.fromColumn(row[f.column])])) as z.output<
        z.ZodObject<Shape<F>>
      >;
    },
  };
}
