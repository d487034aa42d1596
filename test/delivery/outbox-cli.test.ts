// npm run outbox -- list | resend ID | resend-dead | prune, run as the operator runs it.
import { completeOne, queueAuthCode, type TestStore, sqliteVariant } from '../support/stores';
import { dataSet } from './support/harness';
import { spawnCli, storeEnvironment } from './support/worker-process';

jest.setTimeout(30_000);
const sqlite = sqliteVariant();

describe('npm run outbox', () => {
  let ctx: TestStore;
  beforeEach(async () => {
    ctx = await sqlite.create();
    await ctx.store.dataSet.writeDataSet(dataSet(2));
  });
  afterEach(() => ctx.cleanup());

  const runWith = async (env: Record<string, string>, ...args: string[]) => {
    const cli = spawnCli('outbox', args, { ...storeEnvironment(ctx), ...env });
    const code = await cli.exited;
    return { code, output: cli.output() };
  };
  const run = async (...args: string[]) => {
    const cli = spawnCli('outbox', args, storeEnvironment(ctx));
    const code = await cli.exited;
    return { code, output: cli.output() };
  };
  const push = () =>
    ctx.store.outbox.enqueuePushNotification({
      deviceId: 'dev-1001',
      studentId: '1001',
      type: 'exam',
      title: 't',
      body: 'b',
      data: {},
    });
  const kill = async (id: string, table = 'push_notifications') => {
    const [claim] =
      table === 'push_notifications'
        ? await ctx.store.outbox.claimPushNotifications(1, 60)
        : (await ctx.store.outbox.claimAuthCodeMessages(1, 60)).messages;
    expect(claim.id).toBe(id);
    await completeOne(ctx.store, table === 'push_notifications' ? 'push' : 'sms', id, claim.claimToken, {
      status: 'dead',
      error: 'UNREGISTERED: gone',
    });
  };

  it('lists the counts and the dead messages, without codes and with masked numbers', async () => {
    const dead = await push();
    await kill(dead);
    const code = await queueAuthCode(ctx.store, { phone: '+963944123456', code: '482913', callerAddress: null });
    await kill(code, 'auth_code_messages');
    const { code: exit, output } = await run('list');
    expect(exit).toBe(0);
    expect(output).toContain('push: queued 0, sending 0, failed 0, dead 1, uncertain 0, sent 0');
    expect(output).toContain(`push ${dead}  exam to student 1001 (device dev-1001)  attempts 1`);
    expect(output).toContain(`sms  ${code}  code to +*********456  attempts 1`);
    expect(output).toContain('UNREGISTERED: gone');
    expect(output).not.toContain('482913');
    expect(output).not.toContain('+963944123456');
  });

  it('resend ID re-queues a dead message; resend-dead re-queues them all; a code that was erased stays dead', async () => {
    const [a, b] = [await push(), await push()];
    await kill(a);
    await kill(b);
    const sms = await queueAuthCode(ctx.store, { phone: '+963944123456', code: '482913', callerAddress: null });
    await kill(sms, 'auth_code_messages');

    expect(await run('resend', a)).toMatchObject({ code: 0, output: expect.stringContaining(`${a} is queued again`) });
    expect((await ctx.store.admin.listPushNotifications()).find((r) => r.id === a)).toMatchObject({
      status: 'queued',
      attempts: 0,
    });
    expect(await run('resend', sms)).toMatchObject({
      code: 1,
      output: expect.stringContaining('whose code has been erased'),
    });
    expect(await run('resend', 'no-such-id')).toMatchObject({
      code: 1,
      output: expect.stringContaining('No outbox message no-such-id.'),
    });
    expect(await run('resend-dead')).toMatchObject({
      code: 0,
      output: expect.stringContaining('Queued again: 1 push notification(s), 0 login code(s).'),
    });
    expect((await ctx.store.admin.listPushNotifications({ status: 'queued' })).map((r) => r.id).sort()).toEqual(
      [a, b].sort(),
    );
  });

  it('prune deletes sent and dead messages older than OUTBOX_RETENTION_DAYS (or --days), never pending ones', async () => {
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    const set = (table: string, id: string, status: string, days: number) =>
      ctx.query(`update ${table} set status = ?, updated_at = ? where id = ?`, [status, daysAgo(days), id]);
    const [oldSent, recentSent, oldQueued] = [await push(), await push(), await push()];
    await set('push_notifications', oldSent, 'sent', 40);
    await set('push_notifications', recentSent, 'sent', 10);
    await set('push_notifications', oldQueued, 'queued', 400);
    const oldCode = await queueAuthCode(ctx.store, { phone: '+963944123456', code: '482913', callerAddress: null });
    await set('auth_code_messages', oldCode, 'dead', 31);

    expect(await run('prune')).toMatchObject({
      code: 0,
      output: expect.stringContaining(
        'Deleted 1 push notification(s) and 1 login code(s) sent or dead more than 30 day(s) ago.',
      ),
    });
    expect((await ctx.store.admin.listPushNotifications()).map((r) => r.id).sort()).toEqual(
      [recentSent, oldQueued].sort(),
    );
    expect(await runWith({ OUTBOX_RETENTION_DAYS: 'off' }, 'prune')).toMatchObject({
      code: 2,
      output: expect.stringContaining('give --days N'),
    });
    expect(await runWith({ OUTBOX_RETENTION_DAYS: 'off' }, 'prune', '--days', '7')).toMatchObject({
      code: 0,
      output: expect.stringContaining('Deleted 1 push notification(s)'),
    });
    expect((await ctx.store.admin.listPushNotifications()).map((r) => r.id)).toEqual([oldQueued]);
    expect(await run('prune', '--days', '0')).toMatchObject({ code: 2, output: expect.stringContaining('usage:') });
    expect(await run('prune', '--days', '3651')).toMatchObject({ code: 2, output: expect.stringContaining('usage:') });
  });

  it('explains its usage', async () => {
    expect(await run('frobnicate')).toMatchObject({
      code: 2,
      output: expect.stringContaining('usage: npm run outbox -- list'),
    });
  });
});
