// One message in the console (docs/console.md#one-message): its attempt
// history, written with each result and pruned with the message, and Resend
// with its confirmation, for operators only.
import { completeOne, queueAuthCode, storeVariants } from '../support/stores';
import { consoleApp } from './support';
import { signedIn, useConsoleWorld, queuePush, completePush } from './support';

describe.each(storeVariants())('one message in the console on $name', (variant) => {
  const world = useConsoleWorld(variant);

  /** Queues a push for student 1001 and fails it twice (a retry, then dead), as a worker would. */
  async function deadMessage(): Promise<string> {
    const id = await queuePush(world.ctx.store);
    // Claimed at 08:00:00, answered a second later; claimed again when due.
    const retryAt = new Date(world.clock.ms + 61_000).toISOString();
    const failed = { status: 'failed' as const, retryAt, error: 'HTTP 503 from FCM' };
    expect(await completePush(world.ctx.store, id, failed, 'http_503', () => world.clock.advance(1000))).toBe(true);
    world.clock.advance(61_000);
    const dead = { status: 'dead' as const, error: 'UNREGISTERED: the token is no longer valid' };
    expect(await completePush(world.ctx.store, id, dead, 'UNREGISTERED', () => world.clock.advance(1000))).toBe(true);
    return id;
  }

  it('keeps every attempt with its outcome, code, error and next attempt', async () => {
    const id = await deadMessage();
    const attempts = await world.ctx.store.console.listAttempts('push', id);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.code, a.error])).toEqual([
      [1, 'failed', 'http_503', 'HTTP 503 from FCM'],
      [2, 'dead', 'UNREGISTERED', 'UNREGISTERED: the token is no longer valid'],
    ]);
    expect(attempts[0]?.nextAttemptAt).toBe('2026-03-02T08:01:01.000Z');
    expect(attempts[1]?.nextAttemptAt).toBeNull();
  });

  it('writes no attempt for a result whose claim was no longer current', async () => {
    const id = await queuePush(world.ctx.store);
    await world.ctx.store.outbox.claimPushNotifications(1, 30);
    await world.ctx.store.outbox.completeDeliveries([
      { channel: 'push', id, claimToken: 'someone-else', completion: { status: 'sent', providerMessageId: null } },
    ]);
    expect(await world.ctx.store.console.listAttempts('push', id)).toEqual([]);
  });

  it('prunes the attempts with their message', async () => {
    const id = await deadMessage();
    world.clock.advance(40 * 24 * 3_600_000);
    const pruned = await world.ctx.store.outbox.pruneOutbox(new Date(world.clock.ms - 24 * 3_600_000).toISOString());
    expect(pruned.push).toBe(1);
    expect(await world.ctx.store.console.listAttempts('push', id)).toEqual([]);
    expect(await world.ctx.query('select id from outbox_attempts')).toHaveLength(0);
  });

  it('shows the attempts; an operator resends after confirming, and the page shows it queued, then sent', async () => {
    const id = await deadMessage();
    const operator = await signedIn(world.harness.app, 'olga');
    const page = await operator.agent.get(`/console/messages/push/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('UNREGISTERED');
    expect(page.text).toContain('http_503');
    expect(page.text).toContain(`href="/console/messages/push/${id}/resend"`);
    const confirm = await operator.agent.get(`/console/messages/push/${id}/resend`);
    expect(confirm.text).toContain('Yes, resend it');
    const resent = await operator.agent
      .post(`/console/messages/push/${id}/resend`)
      .type('form')
      .send({ csrf: await operator.csrf() });
    expect(resent.status).toBe(303);
    const queued = await operator.agent.get(resent.headers.location);
    expect(queued.text).toMatch(/id="message-status">Queued</);
    expect(queued.text).toContain('The message is queued again');
    expect(await completePush(world.ctx.store, id, { status: 'sent', providerMessageId: 'p' })).toBe(true);
    expect((await operator.agent.get(`/console/messages/push/${id}`)).text).toMatch(/id="message-status">Sent</);
    const entries = (await world.ctx.store.admin.listAuditEntries({ limit: 50, offset: 0, operation: 'resend' })).items;
    expect(entries.map((e) => [e.user, e.subject, e.outcome])).toEqual([['olga', id, 'allowed']]);
  });

  it("answers a viewer's resend with 403 and leaves the message dead", async () => {
    const id = await deadMessage();
    const viewer = await signedIn(world.harness.app, 'victor');
    expect((await viewer.agent.get(`/console/messages/push/${id}`)).text).not.toContain('/resend');
    expect((await viewer.agent.get(`/console/messages/push/${id}/resend`)).status).toBe(403);
    const res = await viewer.agent
      .post(`/console/messages/push/${id}/resend`)
      .type('form')
      .send({ csrf: await viewer.csrf() });
    expect(res.status).toBe(403);
    expect((await world.ctx.store.admin.getOutboxMessage('push', id))?.item.status).toBe('dead');
  });

  it('names the student, school, type and recipient, what was sent, and each attempt to the second with its explanation', async () => {
    const id = await queuePush(world.ctx.store);
    const retryAt = new Date(world.clock.ms + 36_000).toISOString();
    const failed = { status: 'failed' as const, retryAt, error: 'http_503: HTTP 503' };
    expect(await completePush(world.ctx.store, id, failed, 'http_503', () => world.clock.advance(1000))).toBe(true);
    const viewer = await signedIn(world.harness.app, 'victor');
    const page = await viewer.agent.get(`/console/messages/push/${id}`);
    expect(page.status).toBe(200);
    // A title that says whose message it is, not its id.
    expect(page.text).toContain('<title>\u2068“Absence” to \u2068Ahmad Ali\u2069\u2069 – Console</title>');
    expect(page.text).toContain('<a href="/console/students/1001"><bdi>Ahmad Ali</bdi></a>');
    expect(page.text).toContain('<dt>School</dt><dd><bdi>School A</bdi></dd>');
    expect(page.text).toContain('<bdi class="code">dev-1001</bdi>');
    expect(page.text).not.toContain('fcm:AAAA-1001');
    expect(page.text).toContain('<dt>Title sent</dt><dd><bdi>t</bdi></dd>');
    expect(page.text).toContain('<bdi class="sent-text">b</bdi>');
    // The attempt to the second, in UTC by default, and its next try relative to now.
    expect(page.text).toContain(
      '<time datetime="2026-03-02T08:00:01.000Z" title="2026-03-02 08:00:01.000 UTC">2 Mar 2026, 08:00:01 UTC</time>',
    );
    expect(page.text).toContain('title="2026-03-02 08:00:36.000 UTC">in 35 sec</time>');
    expect(page.text).toContain('The provider had a fault or was unavailable');
    expect(page.text).toContain('<strong>The provider</strong>');
  });

  it('shows times in the zone the operator chose, named, with UTC in the title', async () => {
    const id = await deadMessage();
    const viewer = await signedIn(world.harness.app, 'victor');
    const saved = await viewer.agent
      .post('/console/preferences')
      .type('form')
      .send({ csrf: await viewer.csrf(), zone: 'Asia/Riyadh' });
    expect(saved.status).toBe(303);
    expect((await viewer.agent.get(saved.headers.location)).text).toContain('<option value="Asia/Riyadh" selected>');
    const page = await viewer.agent.get(`/console/messages/push/${id}`);
    expect(page.text).toContain(
      '<time datetime="2026-03-02T08:00:01.000Z" title="2026-03-02 08:00:01.000 UTC">2 Mar 2026, 11:00:01 GMT+3</time>',
    );
    const refused = await viewer.agent
      .post('/console/preferences')
      .type('form')
      .send({ csrf: await viewer.csrf(), zone: 'Mars/Olympus' });
    expect(refused.status).toBe(400);
    // Arabic: the same instant, the same digits as the rest of the page.
    await viewer.agent.get('/console/lang/ar');
    expect((await viewer.agent.get(`/console/messages/push/${id}`)).text).toContain('2 مارس 2026، 11:00:01 غرينتش+3');
  });

  it('takes its default zone from the setting', async () => {
    const id = await deadMessage();
    const local = consoleApp(world.ctx.store, world.clock, { timeZone: 'Europe/London' });
    try {
      const viewer = await signedIn(local.app, 'victor');
      expect((await viewer.agent.get(`/console/messages/push/${id}`)).text).toContain(
        '2 Mar 2026, 08:00:01 GMT</time>',
      );
    } finally {
      await local.bcrypt.close();
    }
  });

  it('says what must change before a permanent failure is resent, and offers no resend of an erased login code', async () => {
    const id = await deadMessage();
    const operator = await signedIn(world.harness.app, 'olga');
    const page = await operator.agent.get(`/console/messages/push/${id}`);
    expect(page.text).toContain('Resending fails the same way until this is done: The parents must open the app');
    expect(page.text).toContain(`<a class="button secondary" href="/console/messages/push/${id}/resend">`);

    const sms = await queueAuthCode(world.ctx.store, { phone: '+963944123459', code: '24680', callerAddress: null });
    const { messages } = await world.ctx.store.outbox.claimAuthCodeMessages(1, 30);
    const dead = { status: 'dead' as const, error: 'twilio_21211: The To number is not valid' };
    expect(await completeOne(world.ctx.store, 'sms', sms, messages[0]?.claimToken ?? '', dead)).toBe(true);
    const code = await operator.agent.get(`/console/messages/sms/${sms}`);
    expect(code.text).toContain('<title>Login code to +*********459 – Console</title>');
    expect(code.text).not.toContain('944123459');
    expect(code.text).not.toContain('24680');
    expect(code.text).toContain('The phone number is not a valid number');
    expect(code.text).toContain('The login code was erased once it was given up');
    expect(code.text).not.toContain('/resend"');
  });
});
