// The operator's time zone, an account setting (docs/console.md#times,
// migration 0019): each account sees the same instant in its own zone, in
// any browser; an account with none sees CONSOLE_TIME_ZONE's; a zone this
// Node does not know is refused in the page's language; saving needs the
// CSRF token; the zone comes with the session's read; and the cookie of
// earlier releases is adopted once, then cleared.
import request from 'supertest';
import type { OpenedStore } from '../../src/store';
import { storeVariants } from '../support/stores';
import { completePush, consoleApp, queuePush, signedIn, useConsoleWorld, type Browser } from './support';

/** The dead push's one attempt, at 08:00:01 UTC, as every zone writes it. */
const AT = '<time datetime="2026-03-02T08:00:01.000Z" title="2026-03-02 08:00:01.000 UTC">';

describe.each(storeVariants())("the operator's time zone on $name", (variant) => {
  const world = useConsoleWorld(variant, { accounts: { olga: 'operator', victor: 'viewer', amira: 'admin' } });

  /** A push to student 1001 that died at its first attempt, a second after it was claimed. */
  async function deadPush(): Promise<string> {
    const id = await queuePush(world.ctx.store);
    const dead = { status: 'dead' as const, error: 'UNREGISTERED: the token is no longer valid' };
    expect(await completePush(world.ctx.store, id, dead, 'UNREGISTERED', () => world.clock.advance(1000))).toBe(true);
    return id;
  }

  /** Saves `zone` a second after the last thing done, so that the audit trail's order is the order of the saves. */
  const save = async (browser: Browser, zone: string) => {
    world.clock.advance(1000);
    return browser.agent
      .post('/console/preferences')
      .type('form')
      .send({ csrf: await browser.csrf(), zone });
  };

  const zoneOf = async (name: string) =>
    (await world.ctx.store.console.listAccounts()).find((account) => account.name === name)?.timeZone;

  const preferenceEntries = async () =>
    (await world.ctx.store.admin.listAuditEntries({ limit: 100, offset: 0, endpoint: 'console' })).items
      .filter((entry) => entry.operation === 'preferences')
      .map((entry) => [entry.user, entry.subject, entry.outcome, entry.reason])
      .reverse();

  it('shows two accounts the same instant, each in its own zone, in any browser they sign in from', async () => {
    const id = await deadPush();
    const olga = await signedIn(world.harness.app, 'olga');
    const victor = await signedIn(world.harness.app, 'victor');
    const saved = await save(olga, 'Asia/Riyadh');
    expect(saved.status).toBe(303);
    expect(saved.headers.location).toBe('/console/preferences?saved=1');
    // Kept with the account, not in a cookie of this browser.
    expect(JSON.stringify(saved.headers['set-cookie'] ?? [])).not.toContain('sns_console_zone');
    expect((await save(victor, 'America/New_York')).status).toBe(303);
    expect(await zoneOf('olga')).toBe('Asia/Riyadh');
    expect(await zoneOf('victor')).toBe('America/New_York');

    const page = `/console/messages/push/${id}`;
    expect((await olga.agent.get(page)).text).toContain(`${AT}2 Mar 2026, 11:00:01 GMT+3</time>`);
    expect((await victor.agent.get(page)).text).toContain(`${AT}2 Mar 2026, 03:00:01 GMT-5</time>`);
    // Another browser, another session: the same zone.
    const elsewhere = await signedIn(world.harness.app, 'olga');
    expect((await elsewhere.agent.get(page)).text).toContain(`${AT}2 Mar 2026, 11:00:01 GMT+3</time>`);
    expect((await elsewhere.agent.get('/console/preferences')).text).toContain(
      '<option value="Asia/Riyadh" selected>Asia/Riyadh</option>',
    );
    // Saving ends no session.
    expect((await olga.agent.get('/console/preferences')).status).toBe(200);
    expect(await preferenceEntries()).toEqual([
      ['olga', 'Asia/Riyadh', 'allowed', null],
      ['victor', 'America/New_York', 'allowed', null],
    ]);
  });

  it('shows an account with no zone the console default, and "Console default" clears a zone', async () => {
    const id = await deadPush();
    const london = consoleApp(world.ctx.store, world.clock, { timeZone: 'Europe/London' });
    try {
      const victor = await signedIn(london.app, 'victor');
      expect(await zoneOf('victor')).toBeNull();
      const form = (await victor.agent.get('/console/preferences')).text;
      expect(form).toContain('<option value="" selected>Console default (Europe/London)</option>');
      expect(form).not.toContain('<option value="Europe/London" selected>');
      expect((await victor.agent.get(`/console/messages/push/${id}`)).text).toContain(
        `${AT}2 Mar 2026, 08:00:01 GMT</time>`,
      );

      expect((await save(victor, 'Asia/Riyadh')).status).toBe(303);
      expect((await victor.agent.get(`/console/messages/push/${id}`)).text).toContain('11:00:01 GMT+3</time>');
      const cleared = await save(victor, '');
      expect(cleared.status).toBe(303);
      expect(await zoneOf('victor')).toBeNull();
      expect((await victor.agent.get('/console/preferences')).text).toContain(
        '<option value="" selected>Console default (Europe/London)</option>',
      );
      expect((await victor.agent.get(`/console/messages/push/${id}`)).text).toContain(
        `${AT}2 Mar 2026, 08:00:01 GMT</time>`,
      );
      expect(await preferenceEntries()).toEqual([
        ['victor', 'Asia/Riyadh', 'allowed', null],
        ['victor', null, 'allowed', 'the console default'],
      ]);
    } finally {
      await london.bcrypt.close();
    }
  });

  it('refuses a zone this Node does not know on the form, in the page language, and writes nothing', async () => {
    const victor = await signedIn(world.harness.app, 'victor');
    const refused = await save(victor, 'Mars/Olympus');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('<a href="#zone">Choose a time zone from the list: this one is not known here.</a>');
    expect(refused.text).toContain('aria-invalid="true"');
    expect(refused.text).not.toContain('Mars/Olympus');
    // Past any zone's length, or left out.
    expect((await save(victor, `Asia/${'x'.repeat(5000)}`)).status).toBe(400);
    const missing = await victor.agent
      .post('/console/preferences')
      .type('form')
      .send({ csrf: await victor.csrf() });
    expect(missing.status).toBe(400);

    await victor.agent.get('/console/lang/ar');
    const arabic = await save(victor, 'Europe/Londres');
    expect(arabic.status).toBe(400);
    expect(arabic.text).toContain('اختر منطقة زمنية من القائمة: هذه المنطقة غير معروفة هنا.');
    expect(arabic.text).toContain('<option value="" selected>الافتراضي لوحدة التحكم (UTC)</option>');
    expect(await zoneOf('victor')).toBeNull();
    expect(await preferenceEntries()).toEqual([]);
  });

  it('still needs the CSRF token to save', async () => {
    const victor = await signedIn(world.harness.app, 'victor');
    const without = await victor.agent.post('/console/preferences').type('form').send({ zone: 'Asia/Riyadh' });
    expect(without.status).toBe(403);
    const wrong = await victor.agent
      .post('/console/preferences')
      .type('form')
      .send({ csrf: 'x'.repeat(43), zone: 'Asia/Riyadh' });
    expect(wrong.status).toBe(403);
    expect(await zoneOf('victor')).toBeNull();
    const entries = (await world.ctx.store.admin.listAuditEntries({ limit: 100, offset: 0, endpoint: 'console' }))
      .items;
    expect(entries.filter((entry) => entry.reason === 'csrf').map((entry) => [entry.user, entry.operation])).toEqual([
      ['victor', 'preferences'],
      ['victor', 'preferences'],
    ]);
  });

  it('reads the zone with the session: a page asks the store for nothing more', async () => {
    await world.ctx.store.console.setAccountTimeZone('victor', 'Asia/Riyadh');
    const calls: string[] = [];
    const counting = new Proxy(world.ctx.store.console, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(key));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const store: OpenedStore = { ...world.ctx.store, console: counting };
    const counted = consoleApp(store, world.clock);
    try {
      const victor = await signedIn(counted.app, 'victor');
      calls.length = 0;
      const page = await victor.agent.get('/console/preferences');
      expect(page.text).toContain('<option value="Asia/Riyadh" selected>');
      expect(page.text).toMatch(/<p class="hint"><time [^>]*>2 Mar 2026, 11:00:00 GMT\+3<\/time><\/p>/);
      expect(calls).toEqual(['findSession']);
    } finally {
      await counted.bcrypt.close();
    }
  });

  it('shows the console default for a stored zone this Node no longer knows', async () => {
    await world.ctx.store.console.setAccountTimeZone('victor', 'Mars/Olympus');
    const victor = await signedIn(world.harness.app, 'victor');
    const page = await victor.agent.get('/console/preferences');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<time [^>]*>2 Mar 2026, 08:00:00 UTC<\/time>/);
  });

  it("adopts the earlier releases' cookie once for an account with none, and clears it everywhere", async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const withCookie = (browser: Browser, zone: string) =>
      request(world.harness.app)
        .get('/console/preferences')
        .set('Cookie', `${browser.sessionCookie}; sns_console_zone=${zone}`);
    const clearing = 'sns_console_zone=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0';

    const first = await withCookie(olga, 'Asia/Riyadh');
    expect(first.headers['set-cookie']).toContain(clearing);
    expect(first.text).toContain('<option value="Asia/Riyadh" selected>');
    expect(await zoneOf('olga')).toBe('Asia/Riyadh');
    // Another browser with another choice: the account's zone stands, its cookie goes.
    const second = await withCookie(olga, 'Europe/London');
    expect(second.headers['set-cookie']).toContain(clearing);
    expect(await zoneOf('olga')).toBe('Asia/Riyadh');
    // A value no zone has: cleared, nothing written.
    const victor = await signedIn(world.harness.app, 'victor');
    expect((await withCookie(victor, 'Mars%2FOlympus')).headers['set-cookie']).toContain(clearing);
    expect(await zoneOf('victor')).toBeNull();
    // Without the cookie nothing is cleared.
    expect((await olga.agent.get('/console/preferences')).headers['set-cookie']).toBeUndefined();
    expect(await preferenceEntries()).toEqual([['olga', 'Asia/Riyadh', 'allowed', 'from this browser']]);
  });

  it("shows administrators each account's zone", async () => {
    await world.ctx.store.console.setAccountTimeZone('olga', 'Asia/Riyadh');
    const amira = await signedIn(world.harness.app, 'amira');
    const page = (await amira.agent.get('/console/accounts')).text;
    expect(page).toContain('<bdi>Asia/Riyadh</bdi>');
    expect(page.match(/Console default \(<bdi>UTC<\/bdi>\)/g)).toHaveLength(2);
  });
});
