import pino from 'pino';
import { ENDPOINTS, type OperationModel } from '../../src/contract';
import { ClientError, type Operations } from '../../src/operations';
import { StoreError } from '../../src/store';
import { CallRecord, createDispatcher } from '../../src/wire';

const spec = ENDPOINTS.find((e) => e.name === 'PushNotificationMobile')!.operations[0];
const operation: OperationModel = {
  spec,
  wireName: spec.wireName,
  soapAction: 'http://tempuri.org/GetTokenDevice',
  requestElement: 'GetTokenDevice',
  responseElement: 'GetTokenDeviceResponse',
  resultElement: 'GetTokenDeviceResult',
  parameters: spec.parameters,
  result: spec.result,
};
const context = { callerAddress: '127.0.0.1', requestId: 'r1' };
const newRecord = (): CallRecord => new CallRecord('r1', false);
const call = { context, record: newRecord() };

function dispatcherWith(GetTokenDevice: Operations['GetTokenDevice'], timeoutMs = 1000) {
  const logged: unknown[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => logged.push(JSON.parse(line)) });
  const operations = { GetTokenDevice } as unknown as Operations;
  return { dispatcher: createDispatcher(operations, logger, timeoutMs), logged };
}

describe('the dispatcher', () => {
  it('passes arguments by their wire names, read in WSDL order', async () => {
    const { dispatcher } = dispatcherWith(async ({ id }) => `token-of-${id}`);
    await expect(dispatcher.invoke(operation, ['dev-1'], call)).resolves.toEqual({ ok: true, value: 'token-of-dev-1' });
  });

  it('hands the operation its context alone, and notes the call in the wire’s record', async () => {
    let seen: unknown;
    const { dispatcher } = dispatcherWith(async (_args, given) => {
      seen = given;
      return null;
    });
    const record = newRecord();
    await dispatcher.invoke(operation, ['dev-1'], { context, record, authorization: 'Basic dTpw' });
    expect(seen).toBe(context);
    expect(record).toMatchObject({ operation: 'GetTokenDevice', outcome: 'ok' });
  });

  it('answers a caller mistake as a client failure with its message, unlogged', async () => {
    const { dispatcher, logged } = dispatcherWith(async () => {
      throw new ClientError('x', 'No such thing.');
    });
    await expect(dispatcher.invoke(operation, ['a'], call)).resolves.toEqual({
      ok: false,
      kind: 'client',
      message: 'No such thing.',
    });
    expect(logged).toHaveLength(0);
  });

  it('hides an unexpected error’s message and logs it with the request id', async () => {
    const { dispatcher, logged } = dispatcherWith(async () => {
      throw new Error('SELECT * FROM secrets failed at /srv/app.js:12');
    });
    const outcome = await dispatcher.invoke(operation, ['a'], call);
    expect(outcome).toEqual({
      ok: false,
      kind: 'server',
      message: 'An unexpected error occurred; it has been logged.',
    });
    expect(logged).toEqual([
      expect.objectContaining({ requestId: 'r1', operation: 'GetTokenDevice', msg: 'operation failed' }),
    ]);
  });

  it('shows the store’s own safe message', async () => {
    const { dispatcher } = dispatcherWith(async () => {
      throw new StoreError('unavailable', new Error('ECONNREFUSED'));
    });
    await expect(dispatcher.invoke(operation, ['a'], call)).resolves.toMatchObject({
      kind: 'server',
      message: 'The data store is unavailable.',
    });
  });

  it('gives up on an operation that does not finish in time', async () => {
    const { dispatcher } = dispatcherWith(() => new Promise(() => undefined), 50);
    await expect(dispatcher.invoke(operation, ['a'], call)).resolves.toEqual({
      ok: false,
      kind: 'server',
      message: 'The operation did not complete within 50 ms.',
    });
  });

  // An operation that has its answer at once (GetTokenDevice's read on SQLite) is answered in the same turn.
  it('hands back the outcome itself, noted in the record, when the operation answers at once', () => {
    const { dispatcher } = dispatcherWith(({ id }) => `token-of-${id}`);
    const record = newRecord();
    const outcome = dispatcher.invoke(operation, ['dev-1'], { context, record });
    expect(outcome).not.toBeInstanceOf(Promise);
    expect(outcome).toEqual({ ok: true, value: 'token-of-dev-1' });
    expect(record).toMatchObject({ operation: 'GetTokenDevice', outcome: 'ok' });
  });

  it('answers an operation that throws before it returns as any failure, at once, logged', () => {
    const { dispatcher, logged } = dispatcherWith(() => {
      throw new Error('secret detail');
    });
    const record = newRecord();
    const outcome = dispatcher.invoke(operation, ['a'], { context, record });
    expect(outcome).not.toBeInstanceOf(Promise);
    expect(outcome).toEqual({
      ok: false,
      kind: 'server',
      message: 'An unexpected error occurred; it has been logged.',
    });
    expect(record).toMatchObject({ operation: 'GetTokenDevice', outcome: 'server_fault' });
    expect(logged).toHaveLength(1);
  });
});
