// Which operations only read and which write or send (docs/migration.md#compare):
// the comparison sends writes only when asked, and the service never records
// or shadows them. The operations' traits say which is which
// (src/contract/operation-traits.ts).
import { operationsWhere, operationTraits, type WireOperationName } from '../../contract';

export type OperationKind = 'read' | 'write';

/** The kind of an operation named on the wire; a name the contract lacks is a write, to be safe. */
export function operationKind(operation: string): OperationKind {
  return operationTraits(operation)?.effect ?? 'write';
}

/** The operations that write or send, in the contract's spelling. */
export const WRITE_OPERATIONS: readonly WireOperationName[] = operationsWhere((traits) => traits.effect === 'write');
