// JSON bodies for the parents' mobile apps (docs/design.md#json-bodies). The deployed
// apps parse these arrays from the HTTP GET/POST answers of the three note and
// absence operations; the contract's own answer there is void. Field names and
// "every value a string" are what the apps expect, so nothing here follows our
// own naming. Only used when JSON_BODIES=true.
import {
  OPERATION_TRAITS,
  type AppJsonBody,
  type AppJsonOperation,
  type OperationModel,
  type WireOperationName,
} from '../../contract';
import type { AbsenceRecord, NoteRecord, OperationResult } from '../../operations';

export const APP_JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Writes what operation `K` answered as the apps read it. */
export type AppJsonWriter<K extends WireOperationName> = (value: OperationResult<K>) => string;

const text = (value: string | null | undefined): string => value ?? '';

function absences(records: readonly AbsenceRecord[]): string {
  return JSON.stringify(
    records.map((a) => ({ srid: a.studentId, absence_date: a.date, absence_type: a.type, reason: text(a.reason) })),
  );
}

// `id` and `IDNote` both carry the note's id: the apps send one of them back
// to refer to the note, and a row number would change between calls.
function notes(records: readonly NoteRecord[]): string {
  return JSON.stringify(
    records.map((n) => ({
      srid: n.studentId,
      note_date: n.date,
      note: n.text,
      note_type: n.type,
      badge: text(n.badge),
      id: n.id,
      IDNote: n.id,
    })),
  );
}

// Which operation answers which body is its traits' `appJson`
// (src/contract/operation-traits.ts). The types tie each writer to the
// records of every operation whose traits name its body: a trait naming
// `notes` on an operation that answers students does not compile.
const WRITERS: { readonly [B in AppJsonBody]: AppJsonWriter<AppJsonOperation<B>> } = { absences, notes };

/** The app's JSON writer for an operation, or null when the apps read no JSON from it. */
export function appJsonWriter<K extends WireOperationName>(operation: OperationModel<K>): AppJsonWriter<K> | null {
  const body: AppJsonBody | null = OPERATION_TRAITS[operation.wireName].appJson;
  return body === null ? null : (WRITERS[body] as AppJsonWriter<K>);
}
