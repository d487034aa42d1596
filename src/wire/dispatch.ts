// The one seam between the bindings and the operations: arguments in the
// contract's order in, a result or a failure a binding can write out. The
// access policy's gate (src/access) is consulted here, so that no binding
// can miss it.
import type { Logger } from 'pino';
import { refusalReason, type AccessControl, type AccessRefusal } from '../access';
import { ARGUMENT_READERS, type OperationModel, type WireOperationName } from '../contract';
import { OperationTimeoutError, describeFailure, type CallContext, type Failure, type Operations } from '../operations';
import { authorizationOf, noteCall, noteRefusal } from './call-record';

export type Outcome = { readonly ok: true; readonly value: unknown } | ({ readonly ok: false } & Failure) | ({ readonly ok: false } & AccessRefusal);

export interface Dispatcher {
  /** `values` are the operation's parameters in contract order, already read from the wire. */
  invoke(operation: OperationModel, values: readonly (string | null)[], context: CallContext): Promise<Outcome>;
}

export function createDispatcher(operations: Operations, logger: Logger, timeoutMs: number, access?: AccessControl): Dispatcher {
  const run = async (operation: OperationModel, values: readonly (string | null)[], context: CallContext): Promise<Outcome> => {
    try {
      const value = await withTimeout(call(operations, operation.wireName, values, context), timeoutMs);
      noteCall(context, operation.wireName, null);
      return { ok: true, value };
    } catch (err) {
      noteCall(context, operation.wireName, err);
      const failure = describeFailure(err);
      if (!failure.expected) {
        logger.error({ err, operation: operation.wireName, requestId: context.requestId }, 'operation failed');
      }
      return { ok: false, kind: failure.kind, message: failure.message, retryAfterSeconds: failure.retryAfterSeconds };
    }
  };
  if (access === undefined) return { invoke: run };

  const refused = (operation: OperationModel, context: CallContext, refusal: AccessRefusal): Outcome => {
    noteRefusal(context, operation.wireName, refusalReason(refusal));
    return { ok: false, ...refusal };
  };
  return {
    async invoke(operation, values, context) {
      const verdict = access.checkCall({ operation, values, address: context.callerAddress, authorization: authorizationOf(context) });
      // Awaited only when bcrypt had to run: a remembered or unneeded check stays synchronous.
      const refusal = verdict instanceof Promise ? await verdict : verdict;
      if (refusal !== null) return refused(operation, context, refusal);
      return run(operation, values, context);
    },
  };
}

/** The operation's implementation with its arguments, read by the generated reader of the same operation: typed end to end. */
function call<K extends WireOperationName>(operations: Operations, name: K, values: readonly (string | null)[], context: CallContext) {
  return operations[name](ARGUMENT_READERS[name](values), context);
}

function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OperationTimeoutError(`The operation did not complete within ${timeoutMs} ms.`)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
