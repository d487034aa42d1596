// The one seam between the bindings and the operations: arguments in the
// contract's order in, a result or a failure a binding can write out. The
// access policy's gate (src/access) is consulted here, so that no binding
// can miss it.
import type { Logger } from 'pino';
import { refusalReason, type AccessControl, type AccessRefusal } from '../access';
import { ARGUMENT_READERS, type OperationModel, type WireOperationName } from '../contract';
import {
  OperationTimeoutError,
  describeFailure,
  type CallContext,
  type Failure,
  type OperationResult,
  type Operations,
} from '../operations';
import { noteCall, noteRefusal, type CallRecord } from './call-record';
import { createDeadlines, type Deadlines } from './deadlines';

/**
 * One call as a binding hands it to the dispatcher: what the operation is
 * told, and what stays with the wire. The operation sees `context` and its
 * arguments, nothing else.
 */
export interface WireCall {
  readonly context: CallContext;
  /** The request's record for the access log and the metrics (call-record.ts). */
  readonly record: CallRecord;
  /** The caller's Authorization header, for the access policy's check; left out when no policy is in force. */
  readonly authorization?: string;
}

/** A call that did not answer: the operation's failure, or the access policy's refusal. */
export type Failed = ({ readonly ok: false } & Failure) | ({ readonly ok: false } & AccessRefusal);

/** How a call of operation `K` went: what it answered, typed by the operation, or why it did not. */
export type Outcome<K extends WireOperationName = WireOperationName> =
  { readonly ok: true; readonly value: OperationResult<K> } | Failed;

export interface Dispatcher {
  /**
   * `values` are the operation's parameters in contract order, already read
   * from the wire. The outcome itself when the operation answered at once
   * (no promise turn between the call and its answer, docs/benchmark.md#fourth-round),
   * else a promise of it.
   */
  invoke<K extends WireOperationName>(
    operation: OperationModel<K>,
    values: readonly (string | null)[],
    call: WireCall,
  ): Outcome<K> | Promise<Outcome<K>>;
}

export function createDispatcher(
  operations: Operations,
  logger: Logger,
  timeoutMs: number,
  access?: AccessControl,
): Dispatcher {
  const deadlines = createDeadlines(timeoutMs);
  const succeeded = <K extends WireOperationName>(
    operation: OperationModel<K>,
    call: WireCall,
    value: OperationResult<K>,
  ): Outcome<K> => {
    noteCall(call.record, operation.wireName, null);
    return { ok: true, value };
  };
  const failed = (operation: OperationModel, call: WireCall, err: unknown): Failed => {
    noteCall(call.record, operation.wireName, err);
    const failure = describeFailure(err);
    if (!failure.expected) {
      logger.error({ err, operation: operation.wireName, requestId: call.context.requestId }, 'operation failed');
    }
    return { ok: false, kind: failure.kind, message: failure.message, retryAfterSeconds: failure.retryAfterSeconds };
  };
  const run = <K extends WireOperationName>(
    operation: OperationModel<K>,
    values: readonly (string | null)[],
    call: WireCall,
  ): Outcome<K> | Promise<Outcome<K>> => {
    let work: OperationResult<K> | Promise<OperationResult<K>>;
    try {
      work = invokeOperation(operations, operation.wireName, values, call.context);
    } catch (err) {
      return failed(operation, call, err);
    }
    // Answered at once (a read SQLite did in this turn): nothing can have run meanwhile, so no deadline to keep.
    if (!(work instanceof Promise)) return succeeded(operation, call, work);
    return withDeadline(work, deadlines, timeoutMs).then(
      (value) => succeeded(operation, call, value),
      (err: unknown) => failed(operation, call, err),
    );
  };
  if (access === undefined) return { invoke: run };

  const refused = (operation: OperationModel, call: WireCall, refusal: AccessRefusal): Failed => {
    noteRefusal(call.record, operation.wireName, refusalReason(refusal));
    return { ok: false, ...refusal };
  };
  return {
    invoke(operation, values, call) {
      const verdict = access.checkCall({
        operation,
        values,
        address: call.context.callerAddress,
        authorization: call.authorization,
      });
      // Waited for only when bcrypt had to run: a remembered or unneeded check stays synchronous.
      if (verdict instanceof Promise)
        return verdict.then((refusal) =>
          refusal !== null ? refused(operation, call, refusal) : run(operation, values, call),
        );
      return verdict !== null ? refused(operation, call, verdict) : run(operation, values, call);
    },
  };
}

/** The operation's implementation with its arguments, read by the generated reader of the same operation: typed end to end. */
function invokeOperation<K extends WireOperationName>(
  operations: Operations,
  name: K,
  values: readonly (string | null)[],
  context: CallContext,
) {
  return operations[name](ARGUMENT_READERS[name](values), context);
}

// One promise settled by whichever comes first, the work or its deadline: a
// `Promise.race` against a timeout promise, then `finally`, cost twice the
// CPU and two more microtask turns a call; the deadline is kept by the
// dispatcher's one timer (deadlines.ts, docs/benchmark.md#request-path).
function withDeadline<T>(work: Promise<T>, deadlines: Deadlines, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const deadline = deadlines.start(() =>
      reject(new OperationTimeoutError(`The operation did not complete within ${timeoutMs} ms.`)),
    );
    work.then(
      (value) => {
        if (deadline.finish()) resolve(value);
      },
      (error: unknown) => {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the work's own failure, passed on unchanged
        if (deadline.finish()) reject(error);
      },
    );
  });
}
