// Which operations only read and which write or send (docs/migration.md#compare):
// the comparison sends writes only when asked, and the service never records
// or shadows them. One entry per operation of the contract, or it does not compile.
import type { WireOperationName } from '../contract';

export type OperationKind = 'read' | 'write';

const KINDS = {
  AuthCode: 'write', // queues an SMS
  SendNotificationType: 'write', // queues a push notification
  UpdateNoteState: 'write', // marks notes read
  GetStudentsAbcenceByID: 'write', // marks absences seen
  GetStudentSchool: 'read',
  GetStudentsAudtiNote: 'read',
  GetTokenDevice: 'read',
} as const satisfies Record<WireOperationName, OperationKind>;

/** The kind of an operation named on the wire; a name the contract lacks is a write, to be safe. */
export function operationKind(operation: string): OperationKind {
  return Object.hasOwn(KINDS, operation) ? KINDS[operation as WireOperationName] : 'write';
}

/** The operations that write or send, in the contract's spelling. */
export const WRITE_OPERATIONS: readonly WireOperationName[] = (Object.keys(KINDS) as WireOperationName[]).filter(
  (name) => KINDS[name] === 'write',
);
