// AuthCode(code, phone): sends a login code to a phone by SMS
// (docs/design.md#what-each-operation-does). Validated, checked against the
// abuse limits and queued in the outbox in one transaction; the worker sends
// it afterwards. The code is a secret: never echoed.
import { refusalError } from '../auth-code-refusal';
import { refuse } from '../refused-call';
import type { OperationDeps } from '../define';
import { ClientError } from '../errors';
import { normalisePhone } from '../phone';
import type { CallContext } from '../context';
import type { AuthCodeArgs } from '../../contract/generated';

const CODE_PATTERN = /^[0-9]{4,10}$/;

export const AuthCode =
  (deps: OperationDeps) =>
  async ({ code, phone }: AuthCodeArgs, context: CallContext): Promise<void> => {
    const { store, rules } = deps;
    if (code === null || !CODE_PATTERN.test(code))
      throw new ClientError('code_invalid', 'The code must be 4 to 10 digits.');
    // A refusal is recorded for the console with the phone (kept masked), never the code.
    const refused = (e164: string | null, error: unknown) =>
      refuse(
        deps,
        { operation: 'AuthCode', studentId: null, schoolKey: null, type: null, phone: e164 ?? phone?.trim() ?? null },
        error,
      );
    let e164: string;
    try {
      e164 = normalisePhone(phone, rules.phone);
    } catch (error) {
      return refused(null, error);
    }
    const admission = await store.outbox.admitAuthCode(
      { phone: e164, code, callerAddress: context.callerAddress },
      rules.authCodeLimits ?? [],
    );
    if (!admission.admitted) return refused(e164, refusalError(admission));
    rules.onQueued?.('sms');
  };
