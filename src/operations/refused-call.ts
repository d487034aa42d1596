// A refused SendNotificationType or AuthCode call is recorded for the
// operators' console (docs/console.md#refused-calls), and refused with the
// same fault as before, at once: the record is written in the background
// (one insert), so that it neither delays nor changes the answer. Its
// failure is told to onRefusalNotRecorded (the service logs it). A flood of
// refused calls (a script hammering AuthCode past its limit) is recorded up
// to RECORDS_PER_SECOND a service instance and MAX_IN_FLIGHT writes at once; the rest
// are counted and told as dropped, so that the flood cannot fill the store.
import type { NewRefusedCall } from '../store';
import type { OperationDeps } from './define';
import { storableText } from '../shared/nul';
import { ClientError } from './errors';

/** The reasons worth a support person's look: the caller's own mistakes in a field's form are not kept. */
export const RECORDED_REASONS: ReadonlySet<string> = new Set([
  'student_unknown',
  'student_not_in_school',
  'no_device',
  'no_token',
  'phone_invalid',
  'phone_not_mobile',
  'phone_country',
  'auth_code_limit_phone',
  'auth_code_limit_caller',
  'auth_code_limit_global',
]);

export const RECORDS_PER_SECOND = 50;
export const MAX_IN_FLIGHT = 64;

/** Why a refusal was not recorded: the store failed, or the bounds above were reached. */
export class RefusalNotRecorded extends Error {
  override readonly name = 'RefusalNotRecorded';
}

/**
 * The bounds above, counted for one service instance (createOperations makes
 * one), so that two services in one process (tests, the benchmark) do not
 * share a budget.
 */
export class RefusalRecorder {
  private inFlight = 0;
  private second = 0;
  private recordedThisSecond = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether one more record fits now; when it does, it is counted until `done`. */
  take(): boolean {
    const second = Math.floor(this.now() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.recordedThisSecond = 0;
    }
    if (this.inFlight >= MAX_IN_FLIGHT || this.recordedThisSecond >= RECORDS_PER_SECOND) return false;
    this.inFlight += 1;
    this.recordedThisSecond += 1;
    return true;
  }

  done(): void {
    this.inFlight -= 1;
  }
}

/**
 * The call as every store can keep it: a NUL, which PostgreSQL cannot hold
 * in a text, as U+FFFD (src/shared/nul.ts), so that the console shows where it was.
 */
function storable(call: NewRefusedCall): NewRefusedCall {
  const kept = (value: string | null) => (value === null ? null : storableText(value));
  return {
    ...call,
    studentId: kept(call.studentId),
    schoolKey: kept(call.schoolKey),
    type: kept(call.type),
    phone: kept(call.phone),
  };
}

/** Records `call` (in the background) when its reason is one worth keeping, and throws `error` now. */
export function refuse(
  { store, rules, refusals }: OperationDeps,
  call: Omit<NewRefusedCall, 'reason'> & { reason?: string },
  error: unknown,
): never {
  const reason = call.reason ?? (error instanceof ClientError ? error.code : null);
  if (reason !== null && RECORDED_REASONS.has(reason)) {
    if (!refusals.take()) {
      rules.onRefusalNotRecorded?.(
        new RefusalNotRecorded(`too many refused calls at once; a ${reason} was not recorded`),
      );
    } else {
      store.outbox
        .recordRefusedCall(storable({ ...call, reason }))
        .catch((failure: unknown) => rules.onRefusalNotRecorded?.(failure))
        .finally(() => refusals.done());
    }
  }
  throw error;
}
