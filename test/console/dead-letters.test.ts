// Dead letters (docs/console.md#dead-letters): per channel, grouped by what
// the failure means and who must act, filtered by that or by the exact
// error, a page at a time by their key; dismissed ones kept and left out;
// Resend of the filter shown after a confirmation that restates it, leaving
// out the failures that need a change first unless asked.
import { storeVariants } from '../support/stores';
import { signedIn, useConsoleWorld, queuePush, completePush, hiddenField } from './support';

const ids = (page: string): string[] =>
  [...page.matchAll(/href="\/console\/messages\/push\/([^"]+)"/g)].map((match) => decodeURIComponent(match[1] ?? ''));

describe.each(storeVariants())('dead letters in the console on $name', (variant) => {
  const die = async (error: string | null): Promise<string> => {
    const id = await queuePush(world.ctx.store);
    const completion =
      error === null ? { status: 'sent' as const, providerMessageId: null } : { status: 'dead' as const, error };
    expect(await completePush(world.ctx.store, id, completion)).toBe(true);
    world.clock.advance(1000);
    return id;
  };

  const world = useConsoleWorld(variant);
  beforeEach(async () => {
    // Three dead of a token gone (permanent), two of a provider's answer the table does not know, one sent.
    for (const error of [
      'UNREGISTERED: gone',
      'UNREGISTERED: gone',
      'UNREGISTERED: gone',
      'QUOTA: <over>',
      'QUOTA: <over>',
      null,
    ])
      await die(error);
  });

  const dead = async () =>
    (await world.ctx.store.admin.listOutbox('push', { status: 'dead', limit: 50, offset: 0 })).total;

  it('groups the dead by what their failure means and who must act, and filters by a group or one error', async () => {
    const viewer = await signedIn(world.harness.app, 'victor');
    const all = await viewer.agent.get('/console/dead?channel=push');
    expect(all.status).toBe(200);
    expect(all.text).toContain('5 of 5 shown');
    expect(all.text).toContain(
      '<a href="/console/dead?channel=push&amp;reason=push-token-gone">The app is no longer registered on this phone',
    );
    expect(all.text).toMatch(/reason=push-token-gone">[^<]+<\/a> \(3\)/);
    expect(all.text).toMatch(/reason=other">[^<]+<\/a> \(2\)/);
    expect(all.text).toContain('<strong>The parents</strong>: The parents must open the app');
    // The provider's own text is shown escaped under the explanation.
    expect(all.text).toContain('QUOTA: &lt;over&gt;</bdi>');
    // A viewer sees no Resend and no Dismiss.
    expect(all.text).not.toContain('/console/dead/resend');
    expect(all.text).not.toContain('/dismiss');
    const group = await viewer.agent.get('/console/dead?channel=push&reason=push-token-gone');
    expect(group.text).toContain('3 of 3 shown');
    const filtered = await viewer.agent.get(`/console/dead?channel=push&error=${encodeURIComponent('QUOTA: <over>')}`);
    expect(filtered.text).toContain('2 of 2 shown');
    expect((await viewer.agent.get('/console/dead?channel=sms')).text).toContain('No dead messages.');
    // A reason the table does not have, or a damaged page link, lists nothing.
    expect((await viewer.agent.get('/console/dead?channel=push&reason=nope')).status).toBe(400);
    expect((await viewer.agent.get('/console/dead?channel=push&before=yesterday')).status).toBe(400);
    const refused = await viewer.agent
      .post('/console/dead/resend')
      .type('form')
      .send({ csrf: await viewer.csrf(), channel: 'push' });
    expect(refused.status).toBe(403);
    expect(await dead()).toBe(5);
  });

  it('pages by the last row: every dead message once, the latest given up first', async () => {
    const made: string[] = [];
    for (let i = 0; i < 52; i++) made.push(await die('http_503: HTTP 503'));
    const viewer = await signedIn(world.harness.app, 'victor');
    const first = await viewer.agent.get('/console/dead?channel=push&reason=provider-unavailable');
    expect(first.text).toContain('50 of 52 shown');
    const older = /<a rel="next" href="([^"]+)"/.exec(first.text)?.[1]?.replace(/&amp;/g, '&') ?? '';
    expect(older).toContain('reason=provider-unavailable');
    const second = await viewer.agent.get(older);
    expect(second.status).toBe(200);
    expect([...ids(first.text), ...ids(second.text)]).toEqual([...made].reverse());
    const newer = /<a rel="prev" href="([^"]+)"/.exec(second.text)?.[1]?.replace(/&amp;/g, '&') ?? '';
    expect(ids((await viewer.agent.get(newer)).text)).toEqual(ids(first.text));
  });

  it('resends the filter shown after a confirmation that restates it, leaving out permanent failures unless asked', async () => {
    const operator = await signedIn(world.harness.app, 'olga');
    const page = await operator.agent.get('/console/dead?channel=push');
    // A secondary button, not the page's main action.
    expect(page.text).toContain(
      '<a class="button secondary" href="/console/dead/resend?channel=push">Resend these 5…</a>',
    );
    const confirm = await operator.agent.get('/console/dead/resend?channel=push');
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('These dead messages match the filter shown:');
    expect(confirm.text).toContain('<dt>Channel</dt><dd>Push notifications</dd>');
    expect(confirm.text).toContain('<dt>Reason</dt><dd>All reasons</dd>');
    expect(confirm.text).toContain('<dt>Failures that need a change first</dt><dd>3 (left out)</dd>');
    expect(confirm.text).toContain('<dt>Dead messages matching</dt><dd>5</dd>');
    expect(confirm.text).toContain(
      'Put 2 of these 5 dead messages back in the queue, to be sent now? With the box ticked, all 5.',
    );
    expect(confirm.text).toContain('<input type="checkbox" id="permanent" name="permanent" value="1">');
    const done = await operator.agent
      .post('/console/dead/resend')
      .type('form')
      .send({ csrf: hiddenField(confirm.text), channel: 'push', reason: '', error: '' });
    expect(done.status).toBe(303);
    expect((await operator.agent.get(done.headers.location)).text).toContain('2 messages are queued again.');
    // The count in each language's plural form (Intl.PluralRules).
    const said = async (n: number, lang: 'en' | 'ar') =>
      (await operator.agent.get(`/console/dead?channel=push&resent=${n}`).set('Cookie', `sns_console_lang=${lang}`))
        .text;
    expect(await said(1, 'en')).toContain('1 message is queued again.');
    expect(await said(1, 'ar')).toContain('عادت رسالة واحدة إلى قائمة الانتظار.');
    expect(await said(2, 'ar')).toContain('عادت رسالتان إلى قائمة الانتظار.');
    expect(await said(3, 'ar')).toContain('عادت 3 رسائل إلى قائمة الانتظار.');
    expect(await said(11, 'ar')).toContain('عادت 11 رسالة إلى قائمة الانتظار.');
    expect(await dead()).toBe(3);
    // Asked: the permanent ones too, exactly the group shown.
    world.clock.advance(1000);
    const group = await operator.agent.get('/console/dead/resend?channel=push&reason=push-token-gone');
    expect(group.text).toContain('<dt>Reason</dt><dd>The app is no longer registered on this phone');
    // Every one of them needs a change first: the question is about all 3 (never "Put 0 of these"), the form says so.
    expect(group.text).toContain('Every dead message shown (3) fails the same way until something changes first');
    expect(group.text).not.toContain('Put 0 of');
    expect(group.text).toContain('<input type="hidden" name="permanent" value="1">');
    expect(group.text).not.toContain('type="checkbox" id="permanent"');
    const all = await operator.agent
      .post('/console/dead/resend')
      .type('form')
      .send({ csrf: hiddenField(group.text), channel: 'push', reason: 'push-token-gone', error: '', permanent: '1' });
    expect(all.status).toBe(303);
    expect(await dead()).toBe(0);
    const entries = (await world.ctx.store.admin.listAuditEntries({ limit: 10, offset: 0, operation: 'resend-dead' }))
      .items;
    expect(entries.map((e) => [e.user, e.subject, e.reason])).toEqual([
      ['olga', 'push-token-gone', 'push: 3, permanent included'],
      ['olga', null, 'push: 2'],
    ]);
  });

  it('dismisses a dead message: kept, audited, out of the list and of a resend, shown on asking', async () => {
    const operator = await signedIn(world.harness.app, 'olga');
    const page = await operator.agent.get('/console/dead?channel=push&reason=other');
    const [id] = ids(page.text);
    expect(id).toBeDefined();
    const viewer = await signedIn(world.harness.app, 'victor');
    const refused = await viewer.agent
      .post(`/console/dead/push/${id}/dismiss`)
      .type('form')
      .send({ csrf: await viewer.csrf() });
    expect(refused.status).toBe(403);
    const done = await operator.agent
      .post(`/console/dead/push/${id}/dismiss`)
      .type('form')
      .send({ csrf: hiddenField(page.text), back: 'channel=push&reason=other' });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe('/console/dead?channel=push&reason=other&done=dismissed');
    const after = await operator.agent.get(done.headers.location);
    expect(after.text).toContain('The message was dismissed');
    expect(after.text).toContain('1 of 1 shown');
    expect(ids(after.text)).not.toContain(id);
    const shown = await operator.agent.get('/console/dead?channel=push&dismissed=1');
    expect(ids(shown.text)).toEqual([id]);
    expect(shown.text).toContain('Dismissed <time');
    // Kept in the store, still dead; a resend of everything leaves it.
    expect(await world.ctx.store.admin.getOutboxMessage('push', id ?? '')).toMatchObject({ item: { status: 'dead' } });
    const confirm = await operator.agent.get('/console/dead/resend?channel=push');
    await operator.agent
      .post('/console/dead/resend')
      .type('form')
      .send({ csrf: hiddenField(confirm.text), channel: 'push', permanent: '1' });
    expect(await dead()).toBe(1);
    const entries = (await world.ctx.store.admin.listAuditEntries({ limit: 10, offset: 0, operation: 'dismiss-dead' }))
      .items;
    expect(entries.map((e) => [e.user, e.subject, e.outcome])).toEqual([['olga', id, 'allowed']]);
  });
});
