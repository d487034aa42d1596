// AuthCode(code, phone): sends a login code to a phone by SMS
// (docs/design.md#what-each-operation-does). Validated, checked against the
// abuse limits and queued in the outbox in one transaction; the worker sends
// it afterwards. The code is a secret: never echoed.
import { refusalError } from '../auth-code-refusal';
import type { OperationDeps } from '../define';
import { ClientError } from '../errors';
import { normalisePhone } from '../phone';
import type { CallContext } from '../context';
import type { AuthCodeArgs } from '../../contract/generated';

const CODE_PATTERN = /^[0-9]{4,10}$/;

export const AuthCode =
  ({ store, rules }: OperationDeps) =>
  async ({ code, phone }: AuthCodeArgs, context: CallContext): Promise<void> => {
    if (code === null || !CODE_PATTERN.test(code))
      throw new ClientError('code_invalid', 'The code must be 4 to 10 digits.');
    const e164 = normalisePhone(phone, rules.phone);
    const admission = await store.outbox.admitAuthCode(
      { phone: e164, code, callerAddress: context.callerAddress },
      rules.authCodeLimits ?? [],
    );
    if (!admission.admitted) throw refusalError(admission);
    rules.onQueued?.('sms');
  };
