// Refused calls (docs/console.md#refused-calls): a SendNotificationType
// refused for a student without a device or whose push token was removed,
// and an AuthCode refused by a limit, are recorded (the phone masked) and
// shown on the student's page and in Messages as Refused, with the reason in
// plain words; the caller's answer is the one it was, even when the record
// cannot be written.
import pino from 'pino';
import { pruneOutboxOnce } from '../../src/delivery/outbox-retention';
import type { OperationRules } from '../../src/operations';
import type { App } from '../../src/server';
import { operationsApp } from '../support/operations-app';
import type { OpenedStore } from '../../src/store';
import { storeVariants } from '../support/stores';
import { bodyText, httpPost } from '../support/wire';
import { useConsoleWorld, signedIn } from './support';

const wire = (store: OpenedStore, rules: Partial<OperationRules> = {}): Promise<App> =>
  operationsApp(store, { authCodeLimits: [{ scope: 'phone', max: 1, windowSeconds: 60 }], ...rules });

const send = (app: App, id: string) =>
  httpPost(app, 'NotificationNotes', 'SendNotificationType', {
    id,
    baseUrlSchool: 'https://school-a.example',
    TypeNotfication: 'absence',
  });
/** The refusals are recorded in the background of the answer: waits (a bounded time) for `done` to hold. */
async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 200 && !(await done()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await done()).toBe(true);
}

const authCode = (app: App) => httpPost(app, 'AuthCodeSending', 'AuthCode', { code: '482913', phone: '0944123459' });

describe.each(storeVariants())('refused calls in the console on $name', (variant) => {
  let app: App;

  const world = useConsoleWorld(variant);
  beforeEach(async () => {
    app = await wire(world.ctx.store);
  });

  it('records the refusals, answered as before, and shows them on the student page and in Messages', async () => {
    // 1003's device has no token; 1005 has no device; the second code for a phone within a minute is refused.
    const noToken = await send(app, '1003');
    expect([noToken.status, bodyText(noToken)]).toEqual([
      500,
      'Student 1003 has no device registered for push notifications.\r\n',
    ]);
    expect((await send(app, '1005')).status).toBe(500);
    expect((await authCode(app)).status).toBe(200);
    const limited = await authCode(app);
    expect(limited.status).toBe(500);
    expect(bodyText(limited)).toContain('Too many login codes for this phone number');
    // A call that is a caller's mistake in a field's form is not kept.
    expect((await httpPost(app, 'AuthCodeSending', 'AuthCode', { code: 'x', phone: '0944123459' })).status).toBe(500);

    // The store keeps the phone masked, and its last digits, never the whole number.
    await until(async () => (await world.ctx.query('select id from refused_calls')).length === 3);
    const rows = await world.ctx.query<{ reason: string; phone: string | null; phone_suffix: string | null }>(
      'select reason, phone, phone_suffix from refused_calls order by reason',
    );
    expect(rows).toEqual([
      { reason: 'auth_code_limit_phone', phone: '+*********459', phone_suffix: '3459' },
      { reason: 'no_device', phone: null, phone_suffix: null },
      { reason: 'no_token', phone: null, phone_suffix: null },
    ]);

    const viewer = await signedIn(world.harness.app, 'victor');
    const student = await viewer.agent.get('/console/students/1003');
    expect(student.text).toContain('<h2>Refused calls, newest first</h2>');
    expect(student.text).toContain('<span class="alert">Refused</span>');
    expect(student.text).toContain('the phone’s push token was removed');
    expect(student.text).toContain('<strong>The parents</strong>: The parents open the app');
    expect((await viewer.agent.get('/console/students/1001')).text).toContain('No call for this student was refused.');

    const refused = await viewer.agent.get('/console/messages?status=refused');
    expect(refused.status).toBe(200);
    expect(refused.text).toContain('3 messages on this page');
    expect(refused.text).toContain('<option value="refused" selected>Refused</option>');
    expect(refused.text).toContain('the student has no phone registered for notifications');
    expect(refused.text).toContain('+*********459');
    expect(refused.text).not.toContain('944123459');
    // Found by the phone's last digits beside the code that was sent.
    const byPhone = await viewer.agent.get('/console/messages?q=3459');
    expect(byPhone.text).toContain('2 messages on this page');
    expect(byPhone.text).toContain('too many login codes were asked for this phone');
    // In Arabic.
    await viewer.agent.get('/console/lang/ar');
    const arabic = await viewer.agent.get('/console/messages?status=refused');
    expect(arabic.text).toContain('مرفوض');
    const csv = await viewer.agent.get('/console/messages.csv?status=refused');
    expect(csv.text).toContain(',refused,');
    expect(csv.text).not.toContain('944123459');
  });

  it('answers as it did when the refusal cannot be recorded, and says so to the service', async () => {
    const failures: unknown[] = [];
    const broken: OpenedStore = {
      ...world.ctx.store,
      outbox: { ...world.ctx.store.outbox, recordRefusedCall: () => Promise.reject(new Error('disk full')) },
    };
    const brokenApp = await wire(broken, { onRefusalNotRecorded: (error) => failures.push(error) });
    const res = await send(brokenApp, '1003');
    expect([res.status, bodyText(res)]).toEqual([
      500,
      'Student 1003 has no device registered for push notifications.\r\n',
    ]);
    await until(() => failures.length === 1);
    expect(await world.ctx.query('select id from refused_calls')).toEqual([]);
  });

  it('prunes the refusals with the finished messages', async () => {
    for (const id of ['1003', '1005']) expect((await send(app, id)).status).toBe(500);
    await until(async () => (await world.ctx.query('select id from refused_calls')).length === 2);
    const deleted = await pruneOutboxOnce(
      world.ctx.store.outbox,
      1,
      new Date(Date.now() + 2 * 24 * 3_600_000),
      pino({ level: 'silent' }),
    );
    expect(deleted).toEqual({ push: 0, sms: 0 });
    expect(await world.ctx.query('select id from refused_calls')).toEqual([]);
  });
});
