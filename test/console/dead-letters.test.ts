// Dead letters (docs/console.md#dead-letters): per channel, filtered by the
// error, and Resend for all those matching after a confirmation with their count.
import { storeVariants, type TestStore } from '../support/stores';
import { signedIn, type ConsoleHarness, openConsoleWorld, closeConsoleWorld, queuePush, completePush } from './support';

describe.each(storeVariants())('dead letters in the console on $name', (variant) => {
  let ctx: TestStore;
  let harness: ConsoleHarness;

  beforeEach(async () => {
    ({ ctx, harness } = await openConsoleWorld(variant));
    // Three dead of one error, two of another, one sent.
    const outcomes = [
      'UNREGISTERED: gone',
      'UNREGISTERED: gone',
      'UNREGISTERED: gone',
      'QUOTA: <over>',
      'QUOTA: <over>',
      null,
    ];
    for (const error of outcomes) {
      const id = await queuePush(ctx.store);
      const completion =
        error === null ? { status: 'sent' as const, providerMessageId: null } : { status: 'dead' as const, error };
      expect(await completePush(ctx.store, id, completion)).toBe(true);
    }
  });
  afterEach(() => closeConsoleWorld(ctx, harness));

  const dead = async () => (await ctx.store.admin.listOutbox('push', { status: 'dead', limit: 50, offset: 0 })).total;

  it('lists the dead per channel with the errors they died of, escaped, and filters by one', async () => {
    const viewer = await signedIn(harness.app, 'victor');
    const all = await viewer.agent.get('/console/dead?channel=push');
    expect(all.status).toBe(200);
    expect(all.text).toContain('5 of 5 shown');
    expect(all.text).toContain('QUOTA: &lt;over&gt;</bdi></a> (2)');
    expect(all.text).toContain('UNREGISTERED: gone</bdi></a> (3)');
    // A viewer sees no Resend.
    expect(all.text).not.toContain('/console/dead/resend');
    const filtered = await viewer.agent.get(`/console/dead?channel=push&error=${encodeURIComponent('QUOTA: <over>')}`);
    expect(filtered.text).toContain('2 of 2 shown');
    expect((await viewer.agent.get('/console/dead?channel=sms')).text).toContain('No dead messages.');
    const refused = await viewer.agent
      .post('/console/dead/resend')
      .type('form')
      .send({ csrf: await viewer.csrf(), channel: 'push' });
    expect(refused.status).toBe(403);
    expect(await dead()).toBe(5);
  });

  it('resends all the messages of one error after a confirmation that gives their count', async () => {
    const operator = await signedIn(harness.app, 'olga');
    const error = encodeURIComponent('UNREGISTERED: gone');
    const confirm = await operator.agent.get(`/console/dead/resend?channel=push&error=${error}`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Put these 3 dead messages back in the queue');
    const done = await operator.agent
      .post('/console/dead/resend')
      .type('form')
      .send({ csrf: await operator.csrf(), channel: 'push', error: 'UNREGISTERED: gone' });
    expect(done.status).toBe(303);
    expect((await operator.agent.get(done.headers.location)).text).toContain('3 messages are queued again.');
    expect(await dead()).toBe(2);
    const entries = (await ctx.store.admin.listAuditEntries({ limit: 10, offset: 0, operation: 'resend-dead' })).items;
    expect(entries.map((e) => [e.user, e.reason])).toEqual([['olga', 'push: 3']]);
  });
});
