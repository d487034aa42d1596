// The stored collections, one module each, in dependency order: a record may
// only refer to a collection before it (a student to a school, a note to a
// student), which is the order imports and writes go in.
import { absences } from './absences';
import { devices } from './devices';
import { notes } from './notes';
import { schools } from './schools';
import { students } from './students';

export const COLLECTION_OF = { schools, devices, students, notes, absences } as const;

export type DataSetCollection = keyof typeof COLLECTION_OF;

export const COLLECTIONS = Object.keys(COLLECTION_OF) as DataSetCollection[];

export { RowProblem, type Collection } from './collection';
