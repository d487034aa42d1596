// Checked by `npm run typecheck`, never run: an operation's answer reaches
// the writer of its result type with no cast between them, so pairing an
// operation with a writer of another result type does not compile
// (docs/design.md#results). Each `@ts-expect-error` line must fail to
// compile; if one ever compiles, typecheck fails on the unused directive.
import type { OperationModel, ResultTypeOf, WireOperationName } from '../../src/contract';
import type { OperationResult } from '../../src/operations';
import type { Outcome } from '../../src/wire';
import { appJsonWriter } from '../../src/wire/http/app-json';
import { createResultWriter, type ResultWriter } from '../../src/wire/http/result-writer';
import { RESULT_TYPES, type ResultTypeModule } from '../../src/wire/results';
import { createResponseWriter } from '../../src/wire/soap/envelope-writer';

declare const tokenOperation: OperationModel<'GetTokenDevice'>;
declare const schoolOperation: OperationModel<'GetStudentSchool'>;
declare const notesOperation: OperationModel<'UpdateNoteState'>;
declare const token: OperationResult<'GetTokenDevice'>;
declare const students: OperationResult<'GetStudentSchool'>;
declare const notes: OperationResult<'UpdateNoteState'>;
const ns = 'http://tempuri.org/';

// The registry is keyed by result type: each operation's module is the one of its own type.
export const tokenModule: ResultTypeModule<ResultTypeOf['GetTokenDevice']> = RESULT_TYPES.string;
export const schoolModule: ResultTypeModule<ResultTypeOf['GetStudentSchool']> = RESULT_TYPES.ArrayOfStudentInfo;
// @ts-expect-error GetTokenDevice's result type is string: the void module does not write it.
export const voidForToken: ResultTypeModule<ResultTypeOf['GetTokenDevice']> = RESULT_TYPES.void;
// @ts-expect-error GetStudentSchool's result type is ArrayOfStudentInfo: the string module does not write it.
export const stringForSchool: ResultTypeModule<ResultTypeOf['GetStudentSchool']> = RESULT_TYPES.string;
// @ts-expect-error UpdateNoteState is void on the wire: the list module does not write it.
export const listForNotes: ResultTypeModule<ResultTypeOf['UpdateNoteState']> = RESULT_TYPES.ArrayOfStudentInfo;

export function writersTakeTheirOperationsAnswers(): void {
  createResultWriter(tokenOperation, ns)(token);
  createResponseWriter(tokenOperation, ns).write('1.1', token);
  createResultWriter(schoolOperation, ns)(students);
  createResponseWriter(schoolOperation, ns).write('1.2', students);
  createResponseWriter(notesOperation, ns).write('1.1', notes);
  appJsonWriter(notesOperation)?.(notes);

  // @ts-expect-error GetTokenDevice's HTTP writer does not take GetStudentSchool's answer.
  createResultWriter(tokenOperation, ns)(students);
  // @ts-expect-error GetStudentSchool's SOAP writer does not take GetTokenDevice's answer.
  createResponseWriter(schoolOperation, ns).write('1.1', token);
  // @ts-expect-error the apps' JSON writer of UpdateNoteState takes notes, not students.
  appJsonWriter(notesOperation)?.(students);
}

// @ts-expect-error a list writer is no writer for GetTokenDevice.
export const listWriterForToken: ResultWriter<'GetTokenDevice'> = RESULT_TYPES.ArrayOfStudentInfo.httpWriter(ns);
// @ts-expect-error a string writer is no writer for GetStudentSchool.
export const stringWriterForSchool: ResultWriter<'GetStudentSchool'> = RESULT_TYPES.string.httpWriter(ns);

/** As the bindings do it: generic in the operation, the dispatcher's outcome goes to that operation's writer. */
export function answerOf<K extends WireOperationName>(operation: OperationModel<K>, outcome: Outcome<K>): void {
  if (outcome.ok) createResultWriter(operation, ns)(outcome.value);
}

export function answerOfAnother<K extends WireOperationName, L extends WireOperationName>(
  operation: OperationModel<K>,
  outcome: Outcome<L>,
): void {
  // @ts-expect-error the outcome of one operation is not the answer another's writer takes.
  if (outcome.ok) createResultWriter(operation, ns)(outcome.value);
}

export function schoolOutcome(outcome: Outcome<'GetStudentSchool'>): void {
  if (!outcome.ok) return;
  createResponseWriter(schoolOperation, ns).write('1.1', outcome.value);
  // @ts-expect-error GetStudentSchool's outcome does not go to GetTokenDevice's writer.
  createResultWriter(tokenOperation, ns)(outcome.value);
}
