// The console's accounts and sessions over HTTP: sign-in, cookie flags, the
// CSRF token, role checks, expiry, sign-out, the throttle and the audit trail
// (docs/console.md).
import request from 'supertest';
import type { BcryptPool } from '../../src/access/bcrypt-pool';
import { consoleAllowList } from '../../src/console/allow-list';
import { attachment, BadHeaderValue, cookie } from '../../src/console/respond';
import { storeVariants } from '../support/stores';
import { consoleApp, hiddenField, PASSWORD, signedIn, useConsoleWorld } from './support';

describe.each(storeVariants())('console sessions on $name', (variant) => {
  const world = useConsoleWorld(variant, {
    data: [],
    accounts: { amira: 'admin', victor: 'viewer' },
  });

  const audit = async () =>
    (await world.ctx.store.admin.listAuditEntries({ limit: 100, offset: 0, endpoint: 'console' })).items;

  it('shows the sign-in form with its labels, under a strict CSP and no caching', async () => {
    const res = await request(world.harness.app).get('/console/sign-in');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<label for="name">User name</label>');
    expect(res.text).toContain('<label for="password">Password</label>');
    expect(res.text).toMatch(/<button type="submit">Sign in<\/button>/);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.text).not.toContain('<script');
  });

  it('answers in Arabic, right to left, by Accept-Language or by the language link', async () => {
    const byHeader = await request(world.harness.app).get('/console/sign-in').set('Accept-Language', 'ar-SY,en;q=0.5');
    expect(byHeader.text).toContain('<html lang="ar" dir="rtl">');
    expect(byHeader.text).toContain('اسم المستخدم');
    const agent = request.agent(world.harness.app);
    const link = await agent.get('/console/lang/ar?back=%2Fconsole%2Fsign-in');
    expect(link.status).toBe(303);
    expect(link.headers.location).toBe('/console/sign-in');
    expect((await agent.get('/console/sign-in')).text).toContain('dir="rtl"');
    // Never a redirect off the console.
    expect((await agent.get('/console/lang/en?back=https%3A%2F%2Fevil.example')).headers.location).toBe('/console/');
    expect((await agent.get('/console/lang/en?back=%2F%2Fevil.example')).headers.location).toBe('/console/');
  });

  it('signs in with a fresh session cookie: HttpOnly, SameSite=Strict, under /console, and records it', async () => {
    const agent = request.agent(world.harness.app);
    const form = await agent.get('/console/sign-in');
    const res = await agent
      .post('/console/sign-in')
      .type('form')
      .send({ csrf: hiddenField(form.text), name: 'amira', password: PASSWORD });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/console/');
    const session = (res.headers['set-cookie'] as unknown as string[]).find((c) =>
      c.startsWith('sns_console_session='),
    );
    expect(session).toMatch(/^sns_console_session=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict$/);
    const page = await agent.get('/console/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('amira');
    // The store keeps a hash of the cookie, never the cookie.
    const value = /=([^;]+)/.exec(session ?? '')?.[1] ?? '';
    const rows = await world.ctx.query<{ id: string }>('select id from console_sessions');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.id).not.toBe(value);
    expect((await audit()).map((e) => [e.operation, e.user, e.outcome])).toEqual([['sign-in', 'amira', 'allowed']]);
  });

  it('sets Secure on the cookies when the service is reached over https', async () => {
    const secure = consoleApp(world.ctx.store, world.clock, { secureCookies: true });
    try {
      const form = await request(secure.app).get('/console/sign-in');
      expect(String(form.headers['set-cookie'])).toContain('; Secure');
    } finally {
      await secure.bcrypt.close();
    }
  });

  it('refuses a wrong password with 401, logs the attempt without the password, and audits it', async () => {
    const agent = request.agent(world.harness.app);
    const form = await agent.get('/console/sign-in');
    const res = await agent
      .post('/console/sign-in')
      .type('form')
      .send({ csrf: hiddenField(form.text), name: 'amira', password: 'wrong-password-123' });
    expect(res.status).toBe(401);
    expect(res.text).toContain('The user name or the password is not right.');
    expect(String(res.headers['set-cookie'] ?? '')).not.toContain('sns_console_session=');
    const logged = JSON.stringify(world.harness.logs);
    expect(logged).toContain('console: sign-in failed');
    expect(logged).not.toContain('wrong-password-123');
    expect((await audit()).map((e) => [e.operation, e.user, e.outcome, e.reason])).toEqual([
      ['sign-in', 'amira', 'refused', 'credentials'],
    ]);
  });

  it('throttles failed sign-ins per account: the sixth try in a minute is refused unchecked, even with the password', async () => {
    const agent = request.agent(world.harness.app);
    const csrf = hiddenField((await agent.get('/console/sign-in')).text);
    const attempt = (password: string) =>
      agent.post('/console/sign-in').type('form').send({ csrf, name: 'amira', password });
    for (let i = 0; i < 5; i++) expect((await attempt(`wrong-${i}-password`)).status).toBe(401);
    const refused = await attempt(PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.text).toContain('Too many failed attempts');
    expect((await audit()).some((e) => e.reason === 'throttled')).toBe(true);
    world.clock.advance(61_000);
    expect((await attempt(PASSWORD)).status).toBe(303);
  });

  // Forty at once once got nine password checks past a limit of five: the count was read before it was raised.
  it('checks at most five passwords for a burst of forty concurrent sign-ins to one account', async () => {
    let checks = 0;
    const counting: BcryptPool = {
      compare: () => {
        checks++;
        // As bcrypt on its thread: the answer comes later, with other sign-ins under way meanwhile.
        return new Promise((resolve) => setTimeout(() => resolve(false), 20));
      },
      started: 1,
      close: async () => undefined,
    };
    const burst = consoleApp(world.ctx.store, world.clock, {}, counting);
    const agent = request.agent(burst.app);
    const csrf = hiddenField((await agent.get('/console/sign-in')).text);
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        agent
          .post('/console/sign-in')
          .type('form')
          .send({ csrf, name: 'amira', password: `wrong-${i}-password` })
          .then((res) => res.status),
      ),
    );
    expect(checks).toBe(5);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(35);
  });

  it('does not count a sign-in whose password no thread could check', async () => {
    let answer: boolean | null = null;
    const scripted: BcryptPool = {
      compare: (password) => (answer === null ? null : Promise.resolve(password === PASSWORD && answer)),
      started: 1,
      close: async () => undefined,
    };
    const app = consoleApp(world.ctx.store, world.clock, {}, scripted).app;
    const agent = request.agent(app);
    const csrf = hiddenField((await agent.get('/console/sign-in')).text);
    const attempt = (password: string) =>
      agent.post('/console/sign-in').type('form').send({ csrf, name: 'victor', password });
    // Busy: 503, and none of these counts against victor or the address (which would stop at 10).
    for (let i = 0; i < 8; i++) expect((await attempt(`busy-${i}-password`)).status).toBe(503);
    answer = true;
    for (let i = 0; i < 4; i++) expect((await attempt(`wrong-${i}-password`)).status).toBe(401);
    expect((await attempt(PASSWORD)).status).toBe(303);
  });

  it('refuses a sign-in without the form token (403) and signs nobody in', async () => {
    const res = await request(world.harness.app)
      .post('/console/sign-in')
      .type('form')
      .send({ name: 'amira', password: PASSWORD });
    expect(res.status).toBe(403);
    expect(await world.ctx.query('select id from console_sessions')).toHaveLength(0);
  });

  it('refuses a state-changing form with a missing or wrong CSRF token (403), changing nothing', async () => {
    const admin = await signedIn(world.harness.app, 'amira');
    const form = { name: 'newcomer', password: 'a long enough password', role: 'viewer' };
    const missing = await admin.agent.post('/console/accounts').type('form').send(form);
    expect(missing.status).toBe(403);
    const wrong = await admin.agent
      .post('/console/accounts')
      .type('form')
      .send({ ...form, csrf: 'x'.repeat(43) });
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain('This form has expired');
    expect(await world.ctx.store.console.getAccount('newcomer')).toBeNull();
    const right = await admin.agent
      .post('/console/accounts')
      .type('form')
      .send({ ...form, csrf: await admin.csrf() });
    expect(right.status).toBe(303);
    expect((await world.ctx.store.console.getAccount('newcomer'))?.role).toBe('viewer');
    const entries = await audit();
    expect(entries.filter((e) => e.reason === 'csrf')).toHaveLength(2);
    expect(entries.some((e) => e.operation === 'account-add' && e.user === 'amira' && e.subject === 'newcomer')).toBe(
      true,
    );
  });

  it("answers a viewer's POST to an administrator's action with 403, changing nothing", async () => {
    const viewer = await signedIn(world.harness.app, 'victor');
    const csrf = await viewer.csrf();
    const add = await viewer.agent
      .post('/console/accounts')
      .type('form')
      .send({ csrf, name: 'sneaky', password: 'a long enough password', role: 'admin' });
    expect(add.status).toBe(403);
    expect(add.text).toContain('Your role does not allow this action.');
    const disable = await viewer.agent.post('/console/accounts/amira/disable').type('form').send({ csrf });
    expect(disable.status).toBe(403);
    expect(await world.ctx.store.console.getAccount('sneaky')).toBeNull();
    expect((await world.ctx.store.console.getAccount('amira'))?.disabled).toBe(false);
    expect((await viewer.agent.get('/console/accounts')).status).toBe(403);
    expect((await audit()).filter((e) => e.reason === 'role').map((e) => e.user)).toEqual([
      'victor',
      'victor',
      'victor',
    ]);
  });

  it('says what the change that led to the accounts page did, and nothing for a value that names no change', async () => {
    const admin = await signedIn(world.harness.app, 'amira');
    const added = await admin.agent.get('/console/accounts?done=added&name=newcomer');
    expect(added.text).toMatch(/class="notice"[^]*newcomer/);
    for (const done of ['constructor', 'toString', 'nope']) {
      const page = await admin.agent.get(`/console/accounts?done=${done}&name=newcomer`);
      expect({ done, status: page.status, notice: page.text.includes('class="notice"') }).toEqual({
        done,
        status: 200,
        notice: false,
      });
    }
  });

  it('ends an idle session, and one past its absolute lifetime however busy', async () => {
    const admin = await signedIn(world.harness.app, 'amira');
    world.clock.advance(29 * 60_000);
    expect((await admin.agent.get('/console/')).status).toBe(200);
    world.clock.advance(29 * 60_000);
    expect((await admin.agent.get('/console/')).status).toBe(200);
    world.clock.advance(31 * 60_000);
    const idle = await admin.agent.get('/console/');
    expect(idle.status).toBe(303);
    expect(idle.headers.location).toBe('/console/sign-in?ended=1');
    expect(await world.ctx.query('select id from console_sessions')).toHaveLength(0);

    const busy = await signedIn(world.harness.app, 'amira');
    const statuses: number[] = [];
    // A request every 20 minutes for 12 hours: never idle, ended at its twelfth hour.
    for (let i = 0; i < 36; i++) {
      world.clock.advance(20 * 60_000);
      statuses.push((await busy.agent.get('/console/')).status);
    }
    expect(statuses.slice(0, 35).every((status) => status === 200)).toBe(true);
    expect(statuses[35]).toBe(303);
  });

  it('signs out everywhere: the session row goes, and the same cookie from another node is refused', async () => {
    const admin = await signedIn(world.harness.app, 'amira');
    // Another node: its own store connection and console, the same database.
    const otherStore = await world.ctx.reopen({ now: world.clock.now });
    const other = consoleApp(otherStore, world.clock);
    try {
      const cookies = admin.sessionCookie;
      expect((await request(other.app).get('/console/').set('Cookie', cookies)).status).toBe(200);
      const out = await admin.agent
        .post('/console/sign-out')
        .type('form')
        .send({ csrf: await admin.csrf() });
      expect(out.status).toBe(303);
      expect(String(out.headers['set-cookie'])).toContain('sns_console_session=; Path=/console');
      expect(await world.ctx.query('select id from console_sessions')).toHaveLength(0);
      expect((await request(other.app).get('/console/').set('Cookie', cookies)).status).toBe(303);
      expect((await audit()).map((e) => e.operation).sort()).toEqual(['sign-in', 'sign-out']);
    } finally {
      await other.bcrypt.close();
    }
  });

  it('ends the sessions of an account that is disabled, and refuses its sign-in', async () => {
    const viewer = await signedIn(world.harness.app, 'victor');
    const admin = await signedIn(world.harness.app, 'amira');
    const res = await admin.agent
      .post('/console/accounts/victor/disable')
      .type('form')
      .send({ csrf: await admin.csrf() });
    expect(res.status).toBe(303);
    expect((await viewer.agent.get('/console/')).status).toBe(303);
    await expect(signedIn(world.harness.app, 'victor')).rejects.toThrow('sign-in answered 401');
  });

  // The removal page of `victor%2Fdisable%3F` once showed a "Yes, remove" form whose action disabled victor.
  it('refuses a name no account can have on every route that takes one, and writes names into paths encoded', async () => {
    const admin = await signedIn(world.harness.app, 'amira');
    const csrf = await admin.csrf();
    const confirm = await admin.agent.get('/console/accounts/victor%2Fdisable%3F/remove');
    expect(confirm.status).toBe(404);
    expect(confirm.text).not.toContain('<form method="post" action="/console/accounts/');
    for (const change of ['remove', 'disable', 'enable', 'role']) {
      const res = await admin.agent
        .post(`/console/accounts/victor%2Fdisable%3F/${change}`)
        .type('form')
        .send({ csrf, role: 'admin' });
      expect({ change, status: res.status }).toEqual({ change, status: 404 });
    }
    // `..` and `.` too: a link to /console/accounts/../remove is /console/remove to a browser.
    for (const name of ['victor%20', '..', '.', '%2E%2E', 'a%3Cb', '%C3%A9']) {
      const res = await admin.agent.get(`/console/accounts/${name}/remove`);
      expect({ name, status: res.status }).toEqual({ name, status: 404 });
    }
    const dots = await admin.agent
      .post('/console/accounts')
      .type('form')
      .send({ csrf, name: '..', password: 'long enough password', role: 'viewer' });
    expect(dots.status).toBe(400);
    const accounts = await admin.agent.get('/console/accounts');
    expect(accounts.text).toContain('href="/console/accounts/victor/remove"');
    expect(accounts.text).toContain('<td data-label="State">Active</td>');
    // victor is untouched and still signs in.
    await expect(signedIn(world.harness.app, 'victor')).resolves.toBeDefined();
  });

  // A CRLF in back= once answered an unauthenticated 500 and wrote a stack trace to the log.
  it.each([
    ['a CR LF', '/console/%0D%0ASet-Cookie:%20sns_console_session=forged'],
    ['a LF', '/console/students%0A'],
    ['a NUL', '/console/%00'],
    ['a character past ASCII', '/console/students/%D8%A3'],
  ])('answers 400, logging nothing at error level, for a back= holding %s', async (_, back) => {
    const res = await request(world.harness.app).get(`/console/lang/ar?back=${back}`);
    expect(res.status).toBe(400);
    // A NUL anywhere in a console address is refused before any route (docs/security.md#review-2026-11-28).
    expect(res.text).toBe(
      back.includes('%00')
        ? 'Bad Request: the address holds a NUL character.\r\n'
        : 'Bad Request: the address to go to holds a character a header cannot carry.\r\n',
    );
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers.location).toBeUndefined();
    expect(world.harness.logs.filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(JSON.stringify(world.harness.logs)).not.toMatch(/stack|ERR_INVALID_CHAR/);
  });

  it('refuses addresses outside CONSOLE_ALLOW and lets those inside in', async () => {
    const { BlockList } = await import('node:net');
    const allow = new BlockList();
    allow.addSubnet('10.0.0.0', 8, 'ipv4');
    const closed = consoleApp(world.ctx.store, world.clock, { allow });
    // The test client comes from loopback, as 127.0.0.1 or ::ffff:127.0.0.1 (an IPv4 range covers both).
    const open = consoleApp(world.ctx.store, world.clock, { allow: consoleAllowList(['127.0.0.0/8']) });
    try {
      const res = await request(closed.app).get('/console/sign-in');
      expect(res.status).toBe(403);
      expect(res.text).toContain('CONSOLE_ALLOW');
      expect((await request(open.app).get('/console/sign-in')).status).toBe(200);
    } finally {
      await closed.bcrypt.close();
      await open.bcrypt.close();
    }
  });
});

describe('values the console puts in headers', () => {
  it("are checked: a download name or a cookie a header cannot carry is refused as the request's fault", () => {
    expect(attachment('roster-dry-run.txt')).toBe('attachment; filename="roster-dry-run.txt"');
    for (const name of ['a"b.txt', 'a\\b.txt', 'a\r\nb.txt', 'جدول.txt', ''])
      expect(() => attachment(name)).toThrow(BadHeaderValue);
    expect(cookie('sns_console_lang', 'ar', { secure: true })).toBe(
      'sns_console_lang=ar; Path=/console; HttpOnly; SameSite=Strict; Secure',
    );
    for (const value of ['a;b', 'a b', 'a\r\nSet-Cookie: x=1', '"q"', 'a,b'])
      expect(() => cookie('sns_console_lang', value, { secure: true })).toThrow(BadHeaderValue);
  });
});
