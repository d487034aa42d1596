// The list of messages (docs/console.md#messages): both channels newest
// first, paged by the last row's key with no duplicate and no gap when rows
// share a time, the filters as query parameters, found by a student id, a
// message id or a phone's last digits, phones masked in the page and the
// CSV, and a clear answer to a value it does not take.
import { storeVariants, queueAuthCode } from '../support/stores';
import { signedIn, useConsoleWorld, queuePush, completePush } from './support';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { PAGE_SIZE } from '../../src/console/message-list';

const PHONE = '+963944123459';
const OTHER_PHONE = '+963955667788';

/** The message ids of a page, in the order shown (each row links to its message). */
const idsIn = (page: string): string[] =>
  [...page.matchAll(/<a href="\/console\/messages\/(?:push|sms)\/([^"]+)"><bdi class="code">/g)].map((m) =>
    decodeURIComponent(m[1] ?? ''),
  );

/** The href of the pager's link `rel`, as a path to request. */
const pagerLink = (page: string, rel: 'next' | 'prev'): string | null => {
  const match = new RegExp(`<a rel="${rel}" href="([^"]+)"`).exec(page);
  return match === null ? null : (match[1] ?? '').replace(/&amp;/g, '&');
};

describe.each(storeVariants())('the list of messages in the console on $name', (variant) => {
  const world = useConsoleWorld(variant);

  const sms = (phone = PHONE) => queueAuthCode(world.ctx.store, { phone, code: '24680', callerAddress: null });

  it('lists both channels newest first, each linked to its page, phones masked and tokens absent', async () => {
    const push = await queuePush(world.ctx.store, '1001');
    world.clock.advance(1500);
    const code = await sms();
    const viewer = await signedIn(world.harness.app, 'victor');
    const page = await viewer.agent.get('/console/messages');
    expect(page.status).toBe(200);
    expect(idsIn(page.text)).toEqual([code, push]);
    expect(page.text).toContain('+*********459');
    expect(page.text).not.toContain('944123459');
    expect(page.text).not.toContain('24680');
    expect(page.text).not.toContain('fcm:AAAA-1001');
    expect(page.text).toContain('<a href="/console/students/1001"><bdi>1001</bdi></a>');
    expect(page.text).toContain(
      '<time datetime="2026-03-02T08:00:01.500Z" title="2026-03-02 08:00:01.500 UTC">2 Mar 2026, 08:00:01 UTC</time>',
    );
    expect(page.text).toContain('2 messages on this page, newest first.');
    expect(page.text).toContain('<a href="/console/messages" aria-current="page">Messages</a>');
    // Each row's link leads to the message's own page.
    expect((await viewer.agent.get(`/console/messages/sms/${code}`)).status).toBe(200);
    expect((await viewer.agent.get(`/console/messages/push/${push}`)).status).toBe(200);
  });

  it('filters by status, channel, school, type, days and last error, as query parameters', async () => {
    const dead = await queuePush(world.ctx.store, '1001');
    expect(await completePush(world.ctx.store, dead, { status: 'dead', error: 'UNREGISTERED: gone' })).toBe(true);
    world.clock.advance(24 * 3_600_000);
    const otherSchool = await world.ctx.store.outbox.enqueuePushNotification({
      deviceId: 'dev-2001',
      studentId: '2001',
      type: 'note',
      title: 't',
      body: 'b',
      data: {},
    });
    world.clock.advance(1);
    const code = await sms();
    const viewer = await signedIn(world.harness.app, 'victor');
    const ids = async (query: string) => {
      const page = await viewer.agent.get(`/console/messages?${query}`);
      expect(page.status).toBe(200);
      return idsIn(page.text);
    };
    expect(await ids('channel=push&status=dead')).toEqual([dead]);
    expect(await ids('status=queued')).toEqual([code, otherSchool]);
    expect(await ids('status=queued&channel=sms')).toEqual([code]);
    expect(await ids('status=in-flight')).toEqual([]);
    const [{ school_key: schoolB }] = await world.ctx.query<{ school_key: string }>(
      'select school_key from students where id = ?',
      ['2001'],
    );
    expect(await ids(`school=${encodeURIComponent(schoolB)}`)).toEqual([otherSchool]);
    expect(await ids('type=absence')).toEqual([dead]);
    // A school or a type is a push's alone.
    expect(await ids('type=absence&channel=sms')).toEqual([]);
    expect(await ids('from=2026-03-03')).toEqual([code, otherSchool]);
    expect(await ids('to=2026-03-02')).toEqual([dead]);
    expect(await ids('from=2026-03-02&to=2026-03-03')).toEqual([code, otherSchool, dead]);
    expect(await ids(`channel=push&error=${encodeURIComponent('UNREGISTERED: gone')}`)).toEqual([dead]);
  });

  it("links the overview's counts and frequent errors here with their filter", async () => {
    const dead = await queuePush(world.ctx.store, '1001');
    expect(await completePush(world.ctx.store, dead, { status: 'dead', error: 'UNREGISTERED: gone' })).toBe(true);
    await sms();
    const viewer = await signedIn(world.harness.app, 'victor');
    const overview = await viewer.agent.get('/console/');
    expect(overview.text).toContain(
      'href="/console/messages?channel=push&amp;status=dead" data-live="push.dead">1</a>',
    );
    expect(overview.text).toContain(
      'href="/console/messages?channel=sms&amp;status=queued" data-live="sms.queued">1</a>',
    );
    const errorLink = /href="(\/console\/messages\?channel=push&amp;error=[^"]+)"/.exec(overview.text)?.[1] ?? '';
    expect(errorLink).toBe(`/console/messages?channel=push&amp;error=${encodeURIComponent('UNREGISTERED: gone')}`);
    expect(idsIn((await viewer.agent.get(errorLink.replace(/&amp;/g, '&'))).text)).toEqual([dead]);
  });

  it('finds a message by its id, a student id, or the last digits of a phone', async () => {
    const push = await queuePush(world.ctx.store, '1002');
    const other = await queuePush(world.ctx.store, '1001');
    const code = await sms(PHONE);
    const otherCode = await sms(OTHER_PHONE);
    const viewer = await signedIn(world.harness.app, 'victor');
    const found = async (q: string) =>
      idsIn((await viewer.agent.get(`/console/messages?q=${encodeURIComponent(q)}`)).text);
    expect(await found(push)).toEqual([push]);
    expect(await found(otherCode)).toEqual([otherCode]);
    expect(await found('1002')).toEqual([push]);
    expect(await found('3459')).toEqual([code]);
    expect(await found('944 123 459')).toEqual([code]);
    expect(await found(PHONE)).toEqual([code]);
    expect(await found('7788')).toEqual([otherCode]);
    // More digits than the stored suffix must all match.
    expect(await found('0123459')).toEqual([]);
    expect(await found('no-such-thing')).toEqual([]);
    expect(other).not.toBe(push);
    // The search is audited; a whole phone number is kept masked there.
    const audit = await world.ctx.store.admin.listAuditEntries({ operation: 'messages', limit: 50, offset: 0 });
    const subjects = audit.items.map((e) => e.subject);
    expect(subjects).toContain('1002');
    expect(subjects).toContain('+*********459');
    expect(JSON.stringify(audit.items)).not.toContain('944123459');
  });

  it('pages by the last row: no duplicate and no gap when many rows share a time, older then newer again', async () => {
    // 130 messages in groups of 9 queued in the same millisecond, both channels.
    const queued: string[] = [];
    for (let i = 0; i < 130; i++) {
      queued.push(i % 3 === 0 ? await sms(`+9639441${String(i).padStart(5, '0')}`) : await queuePush(world.ctx.store));
      if (i % 9 === 8) world.clock.advance(1);
    }
    const viewer = await signedIn(world.harness.app, 'victor');
    const pages: string[][] = [];
    let link: string | null = '/console/messages';
    while (link !== null) {
      const answer = await viewer.agent.get(link);
      expect(answer.status).toBe(200);
      pages.push(idsIn(answer.text));
      link = pagerLink(answer.text, 'next');
      if (pages.length > 10) throw new Error('the pager does not end');
    }
    expect(pages.map((p) => p.length)).toEqual([50, 50, 30]);
    const seen = pages.flat();
    expect(new Set(seen).size).toBe(130);
    expect([...seen].sort()).toEqual([...queued].sort());
    // The order is the key's: time queued, then id, both descending.
    const rows = [
      ...(await world.ctx.query<{ id: string; created_at: string }>('select id, created_at from push_notifications')),
      ...(await world.ctx.query<{ id: string; created_at: string }>('select id, created_at from auth_code_messages')),
    ];
    const expected = rows
      .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
      .map((r) => r.id);
    expect(seen).toEqual(expected);
    // Back from the last page: the same pages, newer each time, until the newest.
    const last = await viewer.agent.get(
      `/console/messages?before=${encodeURIComponent(`${rows.find((r) => r.id === pages[1]?.[49])?.created_at ?? ''}_${pages[1]?.[49] ?? ''}`)}`,
    );
    expect(idsIn(last.text)).toEqual(pages[2]);
    const middle = await viewer.agent.get(pagerLink(last.text, 'prev') ?? '');
    expect(idsIn(middle.text)).toEqual(pages[1]);
    const first = await viewer.agent.get(pagerLink(middle.text, 'prev') ?? '');
    expect(idsIn(first.text)).toEqual(pages[0]);
    expect(pagerLink(first.text, 'prev')).toBeNull();
  });

  it('exports the filtered list as CSV, masked as the page, with formulas made text', async () => {
    await world.ctx.store.outbox.enqueuePushNotification({
      deviceId: 'dev-1001',
      studentId: '1001',
      type: '=HYPERLINK("http://evil.example")',
      title: 't',
      body: 'b',
      data: {},
    });
    world.clock.advance(1);
    const code = await sms();
    const viewer = await signedIn(world.harness.app, 'victor');
    const csv = await viewer.agent.get('/console/messages.csv');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="messages.csv"');
    const lines = csv.text
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe('channel,id,queued_at,status,attempts,student_id,school,type,phone,last_error,sent_at');
    expect(lines[1]).toBe(`sms,${code},2026-03-02T08:00:00.001Z,queued,0,,,,'+*********459,,`);
    expect(lines[2]).toContain(`,"'=HYPERLINK(""http://evil.example"")",`);
    expect(csv.text).not.toContain('944123459');
    expect(csv.text).not.toContain('fcm:AAAA');
    const smsOnly = await viewer.agent.get('/console/messages.csv?channel=sms');
    expect(smsOnly.text.trimEnd().split('\r\n')).toHaveLength(2);
    const audit = await world.ctx.store.admin.listAuditEntries({ operation: 'messages-export', limit: 5, offset: 0 });
    expect(audit.items).toHaveLength(2);
  });

  it('sends the CSV a batch at a time: the first rows leave before the next are read, and a failure after them cuts it short', async () => {
    // More than a page: the first batch is a page's worth, the rest come in a second read.
    for (let i = 0; i < PAGE_SIZE + 10; i++) {
      await queuePush(world.ctx.store, '1001');
      world.clock.advance(1);
    }
    const viewer = await signedIn(world.harness.app, 'victor');
    const server = http.createServer(world.harness.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      let received = '';
      let rowsBeforeSecondRead = -1;
      const read = world.ctx.store.console.listMessages.bind(world.ctx.store.console);
      const spy = jest.spyOn(world.ctx.store.console, 'listMessages').mockImplementation(async (filter, page) => {
        if (spy.mock.calls.length === 1) return read(filter, page);
        // The second read waits (a second at most) for the first rows to reach the client, then fails.
        for (let waited = 0; waited < 1000 && !received.endsWith('\r\n'); waited += 10)
          await new Promise((resolve) => setTimeout(resolve, 10));
        rowsBeforeSecondRead = received.split('\r\n').length - 2;
        throw new Error('the store went away');
      });
      const { port } = server.address() as AddressInfo;
      const end = await new Promise<{ status: number; outcome: string }>((resolve) => {
        http
          .get(
            { host: '127.0.0.1', port, path: '/console/messages.csv', headers: { cookie: viewer.sessionCookie } },
            (res) => {
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => (received += chunk));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, outcome: 'ended' }));
              res.on('error', () => resolve({ status: res.statusCode ?? 0, outcome: 'cut short' }));
            },
          )
          .on('error', () => resolve({ status: 0, outcome: 'refused' }));
      });
      expect(rowsBeforeSecondRead).toBe(PAGE_SIZE);
      expect(end).toEqual({ status: 200, outcome: 'cut short' });
      expect(received.trimEnd().split('\r\n')).toHaveLength(PAGE_SIZE + 1);
      expect(world.harness.logs.filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
        'console: messages CSV cut short by a store failure',
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers a value it does not take with a clear message and a 400, never a failure', async () => {
    const viewer = await signedIn(world.harness.app, 'victor');
    const cases: [string, string][] = [
      ['status=lost', 'Status: choose one of the list'],
      ['channel=fax', 'Channel: choose one of the list'],
      ['from=2026-02-30', 'From: enter a date as YYYY-MM-DD'],
      ['to=yesterday', 'To: enter a date as YYYY-MM-DD'],
      ['from=2026-03-02T10:00', 'From: enter a date as YYYY-MM-DD'],
      ['from=2026-03-05&to=2026-03-01', 'To: must not be before From'],
      ['status=sent&status=dead', 'Status: give it once'],
      ['before=not-a-cursor', 'This page link is damaged'],
      ['before=2026-03-02T08:00:00.000Z_a&after=2026-03-02T08:00:00.000Z_b', 'This page link is damaged'],
    ];
    for (const [query, message] of cases) {
      const page = await viewer.agent.get(`/console/messages?${query}`);
      expect([query, page.status]).toEqual([query, 400]);
      expect(page.text).toContain(message);
      const csv = await viewer.agent.get(`/console/messages.csv?${query}`);
      expect([query, csv.status]).toEqual([query, 400]);
      expect(csv.text).toContain(message);
    }
    expect(world.harness.logs.filter((line) => line.level === 50)).toEqual([]);
  });

  it('is open to every role, as message pages are, and to nobody signed out', async () => {
    for (const name of ['victor', 'olga']) {
      const browser = await signedIn(world.harness.app, name);
      expect((await browser.agent.get('/console/messages')).status).toBe(200);
      expect((await browser.agent.get('/console/messages.csv')).status).toBe(200);
    }
    for (const path of ['/console/messages', '/console/messages.csv']) {
      const anonymous = await request(world.harness.app).get(path);
      expect(anonymous.status).toBe(303);
      expect(anonymous.headers.location).toBe('/console/sign-in');
    }
  });

  it('speaks Arabic, counts in its plural forms, and keeps ids and phones left to right', async () => {
    await queuePush(world.ctx.store, '1002');
    await queuePush(world.ctx.store, '1002');
    const viewer = await signedIn(world.harness.app, 'victor');
    await viewer.agent.get('/console/lang/ar');
    const page = await viewer.agent.get('/console/messages');
    expect(page.text).toContain('<html lang="ar" dir="rtl">');
    expect(page.text).toContain('رسالتان في هذه الصفحة، الأحدث أولًا.');
    expect(page.text).toContain('<label for="q">ابحث عن رسالة</label>');
    for (let i = 0; i < 3; i++) await queuePush(world.ctx.store, '1002');
    expect((await viewer.agent.get('/console/messages')).text).toContain('5 رسائل في هذه الصفحة');
  });
});
