// Attacks on the console's newest surfaces (docs/security.md#review-2026-11-28):
// the Messages list and its CSV with hostile query values, the route table
// with hostile paths and methods, and the sign-in throttle with forged
// forwarding headers. Each probe was written to fail first where it found a
// defect; the ones that passed at once show a surface that held.
import request from 'supertest';
import { csvCell } from '../../src/console/message-list';
import { HEAVY_PER_ACCOUNT } from '../../src/console/route-table';
import { storeVariants } from '../support/stores';
import { hiddenField, signedIn, queuePush, useConsoleWorld } from '../console/support';

describe('a CSV cell from a value an anonymous caller chose (a type, a school, an error)', () => {
  it.each([
    ["=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
    ['+1+1', "'+1+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['a,b', '"a,b"'],
    ['note\n=1+1', '"note\n=1+1"'],
    ['absence', 'absence'],
  ])('%j is written %j', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });
});

describe.each(storeVariants())('the console under attack on $name', (variant) => {
  const world = useConsoleWorld(variant, { accounts: { olga: 'operator', victor: 'viewer', ada: 'admin' } });

  const errorsLogged = () => world.harness.logs.filter((line) => (line.level as number) >= 50);

  it('answers a NUL, a lone surrogate or a control character in any filter or cursor without a failure', async () => {
    await queuePush(world.ctx.store, '1001');
    const viewer = await signedIn(world.harness.app, 'victor');
    const values = ['%00', 'a%00b', '%ED%A0%80', '%C0%80', '%E2%80%AE1001', '%1B%5B31m'];
    const queries = values.flatMap((v) => [
      `q=${v}`,
      `school=${v}`,
      `type=${v}`,
      `error=${v}`,
      `before=2026-03-02T08:00:00.000Z_${v}`,
      `after=2026-03-02T08:00:00.000Z_${v}`,
    ]);
    for (const query of queries) {
      for (const path of ['/console/messages', '/console/messages.csv']) {
        const answer = await viewer.agent.get(`${path}?${query}`);
        expect([path, query, answer.status < 500]).toEqual([path, query, true]);
      }
    }
    for (const path of ['/console/students?q=%00', '/console/audit?caller=%00', '/console/dead?q=%00']) {
      const answer = await viewer.agent.get(path);
      expect([path, answer.status < 500]).toEqual([path, true]);
    }
    // Before any session: the sign-in form's name, and a signed-in form's field.
    const anonymous = request.agent(world.harness.app);
    const csrf = hiddenField((await anonymous.get('/console/sign-in')).text);
    const signIn = await anonymous.post('/console/sign-in').type('form').send({ csrf, name: 'a\0b', password: 'x' });
    expect(signIn.status).toBe(400);
    const olga = await signedIn(world.harness.app, 'olga');
    const form = { csrf: await olga.csrf(), q: '\0' };
    expect((await olga.agent.post('/console/dead/resend').type('form').send(form)).status).toBe(400);
    expect(errorsLogged()).toEqual([]);
  });

  it('takes a value given twice as a mistake, brackets as other names, and cuts a huge one', async () => {
    const viewer = await signedIn(world.harness.app, 'victor');
    // The query parser is Express 5's simple one: `q[]` is a name of its own, never an array or an object.
    for (const [query, status] of [
      ['q=a&q=b', 400],
      ['before=2026-03-02T08:00:00.000Z_a&before=2026-03-02T08:00:00.000Z_b', 400],
      ['q[]=a', 200],
      ['q[x]=a', 200],
      ['school[__proto__]=x', 200],
      ['__proto__[q]=x', 200],
      ['__proto__=x&constructor=y', 200],
    ] as const) {
      const answer = await viewer.agent.get(`/console/messages?${query}`);
      expect([query, answer.status]).toEqual([query, status]);
    }
    const huge = await viewer.agent.get(`/console/messages?q=${'9'.repeat(10_000)}`);
    expect(huge.status).toBe(200);
    // The search is cut to its 128 characters; the page's own address (the language link) to 1,000.
    expect(huge.text).toContain(
      `id="q" name="q" type="search" dir="auto" maxlength="128" aria-describedby="q-hint" value="${'9'.repeat(128)}"`,
    );
    expect(huge.text).not.toContain('9'.repeat(1001));
    expect(errorsLogged()).toEqual([]);
  });

  it('answers hostile path parameters with a page or a 404, never a failure', async () => {
    const ada = await signedIn(world.harness.app, 'ada');
    for (const id of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', '%00', '..%2F..%2Fetc']) {
      for (const path of [
        `/console/students/${id}`,
        `/console/messages/push/${id}`,
        `/console/messages/${id}/x`,
        `/console/import/${id}`,
        `/console/import/${id}/check.txt`,
        `/console/accounts/${id}/remove`,
        `/console/devices/${id}/edit`,
        `/console/lang/${id}`,
      ]) {
        const answer = await ada.agent.get(path);
        expect([path, answer.status < 500]).toEqual([path, true]);
      }
    }
    expect(errorsLogged()).toEqual([]);
  });

  it('runs no route for a method it does not declare, and checks the role before anything else', async () => {
    const viewer = await signedIn(world.harness.app, 'victor');
    for (const method of ['put', 'delete', 'patch'] as const) {
      const answer = await viewer.agent[method]('/console/accounts').send('name=x&role=admin&password=x');
      expect([method, answer.status]).toEqual([method, 404]);
    }
    expect(await world.ctx.store.console.getAccount('x')).toBeNull();
    // HEAD is GET without the body: an admin page stays an admin page.
    expect((await viewer.agent.head('/console/accounts')).status).toBe(403);
    // A viewer's POST to an operator route is refused for its role even with a right token, before its form is read.
    const csrf = await viewer.csrf();
    const resend = await viewer.agent.post('/console/dead/resend').type('form').send({ csrf, x: 'y' });
    expect(resend.status).toBe(403);
    const upload = await viewer.agent
      .post('/console/import')
      .field('csrf', csrf)
      .attach('file', Buffer.from('id\n1'), 'a.csv');
    expect(upload.status).toBe(403);
    expect(await world.ctx.query('select upload_id from console_upload_chunks')).toEqual([]);
  });

  it('keeps one account to HEAVY_PER_ACCOUNT heavy reads at once: the next is 429 at once, not another store read', async () => {
    const viewer = await signedIn(world.harness.app, 'victor');
    const olga = await signedIn(world.harness.app, 'olga');
    const read = world.ctx.store.admin.outboxStats.bind(world.ctx.store.admin);
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const spy = jest.spyOn(world.ctx.store.admin, 'outboxStats').mockImplementation(async () => {
      await released;
      return read();
    });
    const held = Array.from({ length: HEAVY_PER_ACCOUNT }, () =>
      viewer.agent.get('/console/overview.json').then((r) => r),
    );
    for (let waited = 0; spy.mock.calls.length < HEAVY_PER_ACCOUNT && waited < 5000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(spy.mock.calls).toHaveLength(HEAVY_PER_ACCOUNT);
    for (const path of ['/console/overview.json', '/console/', '/console/messages.csv', '/console/students?q=a']) {
      const over = await viewer.agent.get(path);
      expect([path, over.status, over.headers['retry-after']]).toEqual([path, 429, '1']);
    }
    expect(spy.mock.calls).toHaveLength(HEAVY_PER_ACCOUNT);
    // Another account is not held up by this one's, nor a light page by the heavy ones.
    const other = olga.agent.get('/console/overview.json').then((r) => r);
    expect((await viewer.agent.get('/console/messages')).status).toBe(200);
    release();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual(Array(HEAVY_PER_ACCOUNT).fill(200));
    expect((await other).status).toBe(200);
    // Their places are free again once they have been answered.
    expect((await viewer.agent.get('/console/overview.json')).status).toBe(200);
  });

  it('counts failed sign-ins by the connecting address, whatever X-Forwarded-For says when no proxy is trusted', async () => {
    const form = async (agent: ReturnType<typeof request.agent>) =>
      hiddenField((await agent.get('/console/sign-in')).text);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const agent = request.agent(world.harness.app);
      const csrf = await form(agent);
      const answer = await agent
        .post('/console/sign-in')
        .set('X-Forwarded-For', `203.0.113.${i}`)
        .set('X-Real-IP', `198.51.100.${i}`)
        .set('Forwarded', `for=192.0.2.${i}`)
        .type('form')
        .send({ csrf, name: `nobody${i}`, password: 'wrong' });
      statuses.push(answer.status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});
