// A school's delivery-event subscription on the console's school page
// (docs/console.md#delivery-events): everyone sees it, never its secret;
// operators set, change and remove it, behind the CSRF token and audited; a
// secret made here is shown once, on the answer to the save.
import { isEventSecret } from '../../src/shared/event-signature';
import { storeVariants } from '../support/stores';
import { useConsoleWorld, queuePush, signedIn } from './support';

const SCHOOL = 'https://school-a.example';
const QUERY = `school=${encodeURIComponent(SCHOOL)}`;
const SCHOOL_PAGE = `/console/schools/students?${QUERY}`;
const FORM = `/console/schools/events?${QUERY}`;
const REMOVE = `/console/schools/events/remove?${QUERY}`;
const GIVEN_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

describe.each(storeVariants())("a school's delivery events in the console on $name", (variant) => {
  const world = useConsoleWorld(variant);

  const storedSecret = async () =>
    (await world.ctx.query<{ secret: string }>('select secret from event_subscriptions'))[0]?.secret ?? null;
  const auditOf = async (operation: string) =>
    (await world.ctx.store.admin.listAuditEntries({ limit: 20, offset: 0, operation })).items
      .map((e) => [e.user, e.subject, e.outcome, e.reason])
      .sort();
  const everything = () => `${JSON.stringify(world.harness.logs)}`;

  it('sets up a subscription with a made secret shown once, then keeps, replaces and takes a given secret', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const before = await olga.agent.get(SCHOOL_PAGE);
    expect(before.text).toContain('No subscription: the school&#39;s system hears nothing of its messages.');
    expect(before.text).toContain(`href="${FORM.replace(/&/g, '&amp;')}"`);

    const form = await olga.agent.get(FORM);
    expect(form.status).toBe(200);
    expect(form.text).toContain('id="events-url"');
    // No subscription yet: nothing to keep, so no "new secret" box.
    expect(form.text).not.toContain('name="newSecret"');

    const made = await olga.agent
      .post(FORM)
      .type('form')
      .send({ csrf: await olga.csrf(), url: ' https://hooks.school-a.example/in ', secret: '' });
    expect(made.status).toBe(200);
    const secret = /id="events-made-secret">([^<]+)</.exec(made.text)?.[1] ?? '';
    expect(isEventSecret(secret)).toBe(true);
    expect(await storedSecret()).toBe(secret);
    expect(made.headers['cache-control']).toBe('no-store');

    // The school's page shows the subscription, never the secret.
    const shown = await olga.agent.get(SCHOOL_PAGE);
    expect(shown.text).toContain('https://hooks.school-a.example/in');
    expect(shown.text).toContain('id="events-state">Active<');
    expect(shown.text).not.toContain(secret.slice(6, 20));
    const again = await olga.agent.get(FORM);
    expect(again.text).toContain('value="https://hooks.school-a.example/in"');
    expect(again.text).toContain('name="newSecret"');
    expect(again.text).not.toContain(secret.slice(6, 20));

    // A new URL and an empty secret: the secret stays.
    const kept = await olga.agent
      .post(FORM)
      .type('form')
      .send({ csrf: await olga.csrf(), url: 'https://hooks.school-a.example/v2', secret: '' });
    expect(kept.status).toBe(303);
    expect((await olga.agent.get(kept.headers.location)).text).toContain('The event subscription was saved.');
    expect(await storedSecret()).toBe(secret);

    // A new secret asked for: made and shown once; the old one is gone.
    const renewed = await olga.agent
      .post(FORM)
      .type('form')
      .send({ csrf: await olga.csrf(), url: 'https://hooks.school-a.example/v2', secret: '', newSecret: '1' });
    const second = /id="events-made-secret">([^<]+)</.exec(renewed.text)?.[1] ?? '';
    expect(isEventSecret(second)).toBe(true);
    expect(second).not.toBe(secret);
    expect(await storedSecret()).toBe(second);

    // A secret given: stored, shown nowhere.
    const given = await olga.agent
      .post(FORM)
      .type('form')
      .send({ csrf: await olga.csrf(), url: 'https://hooks.school-a.example/v2', secret: GIVEN_SECRET });
    expect(given.status).toBe(303);
    expect(await storedSecret()).toBe(GIVEN_SECRET);

    expect(await auditOf('school-events')).toEqual([
      ['olga', SCHOOL, 'allowed', 'changed secret-given'],
      ['olga', SCHOOL, 'allowed', 'changed secret-kept'],
      ['olga', SCHOOL, 'allowed', 'changed secret-made'],
      ['olga', SCHOOL, 'allowed', 'created secret-made'],
    ]);
    // No secret reaches the log or the audit trail.
    for (const s of [secret, second, GIVEN_SECRET]) {
      expect(everything()).not.toContain(s.slice(6));
      expect(JSON.stringify(await auditOf('school-events'))).not.toContain(s.slice(6));
    }
  });

  it('refuses a URL the rule refuses and a bad secret, in the page language, never echoing the secret', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const refused = await olga.agent
      .post(FORM)
      .type('form')
      .send({ csrf: await olga.csrf(), url: 'http://hooks.school-a.example/', secret: 'whsec_not-a-key-at-all' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('<a href="#events-url">The address must start https://.</a>');
    expect(refused.text).toContain('href="#events-secret"');
    expect(refused.text).not.toContain('not-a-key-at-all');
    expect(refused.text).toContain('value="http://hooks.school-a.example/"');

    await olga.agent.get('/console/lang/ar');
    const arabic = await olga.agent
      .post(FORM)
      .type('form')
      .send({ csrf: await olga.csrf(), url: 'https://user:pw@hooks.school-a.example/', secret: '' });
    expect(arabic.status).toBe(400);
    expect(arabic.text).toContain('يجب ألا يحمل العنوان اسم مستخدم أو كلمة مرور.');
    expect(await world.ctx.store.admin.getEventSubscription(SCHOOL)).toBe('none');
    expect(await auditOf('school-events')).toEqual([
      ['olga', SCHOOL, 'refused', 'invalid'],
      ['olga', SCHOOL, 'refused', 'invalid'],
    ]);
  });

  it('shows a failing receiver with its counts and masked last error; viewers see it and may change nothing', async () => {
    await world.ctx.store.admin.putEventSubscription(SCHOOL, {
      url: 'https://hooks.school-a.example/in',
      secret: GIVEN_SECRET,
    });
    await queuePush(world.ctx.store, '1001');
    const rule = { failingAfterMs: 1000, disableAfterMs: 86_400_000 };
    const fail = async () => {
      const [event] = await world.ctx.store.outbox.claimEvents(10, 4, 30);
      if (event === undefined) throw new Error('no event to claim');
      await world.ctx.store.outbox.completeEvents(
        [
          {
            id: event.id,
            claimToken: event.claimToken,
            schoolKey: event.schoolKey,
            completion: {
              status: 'failed',
              retryAt: world.clock.now().toISOString(),
              error: 'http_503: the receiver answered 503',
            },
          },
        ],
        rule,
      );
    };
    await fail();
    world.clock.advance(5000);
    await fail();

    const victor = await signedIn(world.harness.app, 'victor');
    const shown = await victor.agent.get(SCHOOL_PAGE);
    expect(shown.text).toContain('id="events-state">Failing<');
    expect(shown.text).toContain('http_503: the receiver answered 503');
    expect(shown.text).toMatch(/Events to retry<\/dt><dd>1</);
    expect(shown.text).toContain('Failing since');
    // A viewer gets no links to change it, and no way to.
    expect(shown.text).not.toContain('/console/schools/events?');
    expect((await victor.agent.get(FORM)).status).toBe(403);
    const post = await victor.agent
      .post(REMOVE)
      .type('form')
      .send({ csrf: await victor.csrf() });
    expect(post.status).toBe(403);
    expect(await world.ctx.store.admin.getEventSubscription(SCHOOL)).toMatchObject({ state: 'failing', failed: 1 });
  });

  it('removes a subscription after asking, and refuses a form without its CSRF token', async () => {
    await world.ctx.store.admin.putEventSubscription(SCHOOL, {
      url: 'https://hooks.school-a.example/in',
      secret: GIVEN_SECRET,
    });
    const olga = await signedIn(world.harness.app, 'olga');
    const forged = await olga.agent.post(REMOVE).type('form').send({});
    expect(forged.status).toBe(403);
    const forgedSet = await olga.agent.post(FORM).type('form').send({ url: 'https://evil.example/' });
    expect(forgedSet.status).toBe(403);
    expect(await world.ctx.store.admin.getEventSubscription(SCHOOL)).toMatchObject({
      url: 'https://hooks.school-a.example/in',
    });

    const ask = await olga.agent.get(REMOVE);
    expect(ask.text).toContain('Remove the event subscription of School A? Its undelivered events are dropped.');
    const removed = await olga.agent
      .post(REMOVE)
      .type('form')
      .send({ csrf: await olga.csrf() });
    expect(removed.status).toBe(303);
    expect((await olga.agent.get(removed.headers.location)).text).toContain(
      'The event subscription was removed, with its undelivered events.',
    );
    expect(await world.ctx.store.admin.getEventSubscription(SCHOOL)).toBe('none');
    expect(await auditOf('school-events-remove')).toEqual([['olga', SCHOOL, 'allowed', 'removed']]);
  });
});
