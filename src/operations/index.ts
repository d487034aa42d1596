// The operations of the contract, one module each in a folder per endpoint
// (src/operations/<Endpoint>/<Operation>.ts), each implemented once whatever
// the binding that calls it.
import type { WireOperationName, WireOperations } from '../contract';
import type { Store } from '../store';
import { AuthCode } from './AuthCodeSending/AuthCode';
import type { CallContext } from './context';
import type { AllowedResult, OperationDeps, OperationFactory, OperationRules } from './define';
import { GetStudentsAbcenceByID } from './GetStudentsAbsence/GetStudentsAbcenceByID';
import { GetStudentsAudtiNote } from './GetStudentsAudit/GetStudentsAudtiNote';
import { GetStudentSchool } from './NotificationNotes/GetStudentSchool';
import { SendNotificationType } from './NotificationNotes/SendNotificationType';
import { GetTokenDevice } from './PushNotificationMobile/GetTokenDevice';
import { UpdateNoteState } from './ReadNoteFromApp/UpdateNoteState';
import { RefusalRecorder } from './refused-call';

export { ClientError, OperationTimeoutError, StoreError, describeFailure, type Failure } from './errors';
/** The records the note and absence operations answer with. */
export type { AbsenceRecord, NoteRecord } from '../store';
export type { CallContext } from './context';
export type { OperationRules } from './define';
export type { PhoneRules } from './phone';

/** Which module serves each operation: an operation of the WSDL missing here, or one it lacks, does not compile. */
const MODULES = {
  AuthCode,
  GetStudentsAudtiNote,
  UpdateNoteState,
  GetStudentsAbcenceByID,
  GetStudentSchool,
  SendNotificationType,
  GetTokenDevice,
} satisfies { readonly [K in WireOperationName]: OperationFactory<K> };

type Modules = typeof MODULES;

/**
 * What operation `K` answers (for a void one, what it read), which is also
 * what its result type carries: said of each operation, so that code generic
 * in the operation hands the answer to its result type's writer as it is.
 */
export type OperationResult<K extends WireOperationName> = Awaited<ReturnType<ReturnType<Modules[K]>>> &
  AllowedResult<K>;

/** Each operation's implementation, its arguments and result written in terms of the operation (so a caller generic in it stays typed). */
export type Operations = {
  readonly [K in WireOperationName]: (
    args: WireOperations[K]['args'],
    context: CallContext,
  ) => OperationResult<K> | Promise<OperationResult<K>>;
};

/** MODULES as createOperations uses them: each entry checked to make its operation's implementation. */
const FACTORIES: { readonly [K in WireOperationName]: (deps: OperationDeps) => Operations[K] } = MODULES;

export function createOperations(store: Store, rules: OperationRules): Operations {
  const deps: OperationDeps = { store, rules, refusals: new RefusalRecorder() };
  // Object.fromEntries types its keys as strings; they are those of FACTORIES, every operation.
  return Object.fromEntries(Object.entries(FACTORIES).map(([name, factory]) => [name, factory(deps)])) as Operations;
}
