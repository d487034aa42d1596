// The stored collections, one module each, in dependency order: a record may
// only refer to a collection before it (a student to a school, a note to a
// student), which is the order imports and writes go in.
import { absences } from './absences';
import type { Link } from './collection';
import { devices } from './devices';
import { notes } from './notes';
import { schools } from './schools';
import { students } from './students';

export const COLLECTION_OF = { schools, devices, students, notes, absences } as const;

export type DataSetCollection = keyof typeof COLLECTION_OF;

export const COLLECTIONS = Object.keys(COLLECTION_OF) as DataSetCollection[];

/** A link between two collections: `from`'s field names a record of `to` (collection.ts, Reference). */
export interface CollectionLink extends Omit<Link, 'collection'> {
  readonly from: DataSetCollection;
  readonly to: DataSetCollection;
}

/** Every link, in collection order then field order. */
export const LINKS: readonly CollectionLink[] = COLLECTIONS.flatMap((from) =>
  COLLECTION_OF[from].links.map(({ collection, ...link }) => {
    const to = collection as DataSetCollection;
    // The order imports and writes go in must put the named collection first.
    if (!COLLECTIONS.slice(0, COLLECTIONS.indexOf(from)).includes(to))
      throw new Error(`${from}.${link.field} names ${collection}, which is not listed before it`);
    return { ...link, from, to };
  }),
);

/** The links of a collection's records to others. */
export function linksFrom(collection: DataSetCollection): readonly CollectionLink[] {
  return LINKS.filter((link) => link.from === collection);
}

/** The links of other collections' records to this one. */
export function linksTo(collection: DataSetCollection): readonly CollectionLink[] {
  return LINKS.filter((link) => link.to === collection);
}

/** Links a record's value must satisfy: the named record is stored or comes in the same data set (all but `keep`). */
export function checkedLinksFrom(collection: DataSetCollection): readonly CollectionLink[] {
  return linksFrom(collection).filter((link) => link.onDelete !== 'keep');
}

export { RowProblem, type Collection, type Link, type Reference } from './collection';
