// What every operation module is: a factory that, given what the operations
// share (the store, the rules), makes the implementation of one operation of
// the contract, taking that operation's arguments by their wire names (from
// the generated contract) and answering what the wire carries. Operations
// whose wire result is void may answer what they read, for the JSON bodies
// of the mobile apps (docs/design.md#json-bodies).
import type { ResultTypeOf, ResultValues, WireOperationName, WireOperations } from '../contract';
import type { AuthCodeLimit, Store } from '../store';
import type { CallContext } from './context';
import type { NotificationTemplate } from '../domain';
import type { OutboxChannel } from '../shared/outbox-channel';
import type { PhoneRules } from './phone';
import type { RefusalRecorder } from './refused-call';

export interface OperationRules {
  readonly phone: PhoneRules;
  readonly templates?: Readonly<Record<string, NotificationTemplate>>;
  /** Abuse limits on AuthCode, counted in the store; none given: no limit. */
  readonly authCodeLimits?: readonly AuthCodeLimit[];
  /** Told after a message was queued, so that a worker in this process can send it at once. */
  readonly onQueued?: (channel: OutboxChannel) => void;
  /** Notification types (lower case) sent during a school's quiet hours; none given: every type is held (URGENT_NOTIFICATION_TYPES). */
  readonly urgentTypes?: ReadonlySet<string>;
  /** The clock the due times are reckoned by; the system's unless given (tests). */
  readonly now?: () => Date;
  /** Told when a refused call could not be recorded for the console (the call is refused all the same). */
  readonly onRefusalNotRecorded?: (error: unknown) => void;
}

export interface OperationDeps {
  readonly store: Store;
  readonly rules: OperationRules;
  /** The bounds on recording refused calls, one per service instance (refused-call.ts). */
  readonly refusals: RefusalRecorder;
}

/** What an operation may answer: what its result type carries (anything when that is void). */
export type AllowedResult<K extends WireOperationName> = ResultValues[ResultTypeOf[K]];

/**
 * An operation answers with a promise, or with its result itself when it has
 * it at once (GetTokenDevice's read on SQLite): the dispatcher then writes the
 * answer in the same turn (docs/benchmark.md#fourth-round).
 */
export type Implementation<K extends WireOperationName> = (
  args: WireOperations[K]['args'],
  context: CallContext,
) => AllowedResult<K> | Promise<AllowedResult<K>>;

export type OperationFactory<K extends WireOperationName> = (deps: OperationDeps) => Implementation<K>;
