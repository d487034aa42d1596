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
  [...page.matchAll(/<a href="\/console\/messages\/(?:push|sms)\/([^"]+)"><bdi class="code" dir="ltr">/g)].map((m) =>
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

  it("takes a UTC instant to the minute for From and To, To excluded, whatever the operator's zone", async () => {
    // 08:00:00.000, 08:00:59.999 and 08:01:00.000: the last is the first instant after the minute 08:00.
    const first = await queuePush(world.ctx.store, '1001');
    world.clock.advance(59_999);
    const last = await sms();
    world.clock.advance(1);
    const next = await queuePush(world.ctx.store, '1002');
    const viewer = await signedIn(world.harness.app, 'victor');
    const ids = async (query: string) => {
      const page = await viewer.agent.get(`/console/messages?${query}`);
      expect([query, page.status]).toEqual([query, 200]);
      return idsIn(page.text);
    };
    expect(await ids('from=2026-03-02T08:00Z&to=2026-03-02T08:01Z')).toEqual([last, first]);
    expect(await ids('from=2026-03-02T08:01Z&to=2026-03-02T08:02Z')).toEqual([next]);
    expect(await ids('from=2026-03-02T08:01Z')).toEqual([next]);
    expect(await ids('to=2026-03-02T08:01Z')).toEqual([last, first]);
    // A day and an instant together: the day From starts at its midnight in UTC.
    expect(await ids('from=2026-03-02&to=2026-03-02T08:01Z')).toEqual([last, first]);
    const page = await viewer.agent.get('/console/messages?from=2026-03-02T08:00Z&to=2026-03-02T08:01Z');
    // The instant stays in the field as given (a date field would empty it), restated in the operator's zone.
    expect(page.text).toContain(
      '<input id="from" name="from" type="text" dir="ltr" maxlength="40" aria-describedby="dates-hint" value="2026-03-02T08:00Z">',
    );
    expect(page.text).toContain(
      'Showing messages queued from <time datetime="2026-03-02T08:00:00.000Z" title="2026-03-02 08:00:00.000 UTC">2 Mar 2026, 08:00 UTC</time> to <time datetime="2026-03-02T08:01:00.000Z" title="2026-03-02 08:01:00.000 UTC">2 Mar 2026, 08:01 UTC</time>, that minute excluded.',
    );
    // Days keep their date fields and say nothing more.
    const days = await viewer.agent.get('/console/messages?from=2026-03-02&to=2026-03-02');
    expect(days.text).toContain('<input id="from" name="from" type="date"');
    expect(days.text).not.toContain('id="times-shown"');
    // The CSV takes the same parameters.
    const csv = await viewer.agent.get('/console/messages.csv?from=2026-03-02T08:00Z&to=2026-03-02T08:01Z');
    expect(csv.status).toBe(200);
    expect(
      csv.text
        .trimEnd()
        .split('\r\n')
        .slice(1)
        .map((line) => line.split(',')[1]),
    ).toEqual([last, first]);
    // In another zone the instants are the same UTC instants, shown in that zone, in Arabic too.
    const saved = await viewer.agent
      .post('/console/preferences')
      .type('form')
      .send({ csrf: await viewer.csrf(), zone: 'Asia/Kolkata' });
    expect(saved.status).toBe(303);
    expect(await ids('from=2026-03-02T08:00Z&to=2026-03-02T08:01Z')).toEqual([last, first]);
    const zoned = await viewer.agent.get('/console/messages?from=2026-03-02T08:00Z&to=2026-03-02T08:01Z');
    expect(zoned.text).toMatch(/Showing messages queued from <time [^>]+>2 Mar 2026, 13:30 GMT\+5:30<\/time> to/);
    const arabic = await viewer.agent
      .get('/console/messages?from=2026-03-02T08:00Z&to=2026-03-02T08:01Z')
      .set('Cookie', 'sns_console_lang=ar');
    expect(arabic.text).toMatch(
      /تُعرض الرسائل المُدرجة من <time datetime="2026-03-02T08:00:00.000Z"[^>]*>[^<]+<\/time> إلى <time/,
    );
  });

  it('lists from a chart period of the overview exactly the messages the period counts, its end excluded', async () => {
    const { store } = world.ctx;
    // In the minute 08:00: one sent, one retrying, one given up, a login code queued and a refused call.
    const sent = await queuePush(store, '1001');
    const retrying = await queuePush(store, '1001');
    const dead = await queuePush(store, '1002');
    expect(await completePush(store, sent, { status: 'sent', providerMessageId: null })).toBe(true);
    expect(
      await completePush(store, retrying, { status: 'failed', retryAt: '2026-03-02T09:00:00.000Z', error: 'http_503' }),
    ).toBe(true);
    expect(await completePush(store, dead, { status: 'dead', error: 'UNREGISTERED' })).toBe(true);
    world.clock.advance(30_000);
    const code = await sms();
    await store.outbox.recordRefusedCall({
      operation: 'SendNotificationType',
      reason: 'no_device',
      studentId: '1005',
      schoolKey: null,
      type: 'absence',
      phone: null,
    });
    // 08:01:00.000, the next minute's first instant; then the page is drawn at 08:05.
    world.clock.advance(30_000);
    const later = await queuePush(store, '1002');
    world.clock.advance(4 * 60_000);
    const viewer = await signedIn(world.harness.app, 'victor');
    /** The rows Messages lists at a link of the overview's page (refused calls have no link of their own). */
    const follow = async (href: string) => {
      const page = await viewer.agent.get(href.replace(/&amp;/g, '&'));
      expect([href, page.status]).toEqual([href, 200]);
      return { ids: idsIn(page.text), rows: (page.text.match(/<tr>\n<td data-label="Queued">/g) ?? []).length };
    };
    const minute = 'href="/console/messages?from=2026-03-02T08:00Z&amp;to=2026-03-02T08:01Z"';
    const overview = (await viewer.agent.get('/console/?range=1h')).text;
    // The bar's link, out of the tab order, and its figures: the messages queued in the minute by where they stand.
    expect(overview).toContain(`<a ${minute} tabindex="-1"><title>08:00: Sent 1, Retrying 1, Given up 1</title>`);
    // The table of periods: the two minutes with messages, newest first, each with its count and the same link.
    expect(overview).toContain('<summary>2 periods with messages: links to them</summary>');
    const rows = [
      ...overview.matchAll(
        /<td data-label="Queued" class="number">(\d+)<\/td><td data-label="Messages"><a (href="[^"]+")>Show messages/g,
      ),
    ];
    expect(rows.map((m) => [m[1], m[2]])).toEqual([
      ['1', 'href="/console/messages?from=2026-03-02T08:01Z&amp;to=2026-03-02T08:02Z"'],
      ['5', minute],
    ]);
    const listed = await follow(minute.slice(6, -1));
    expect(listed.rows).toBe(5);
    // The three pushes share a millisecond: among them the list orders by id.
    expect(listed.ids[0]).toBe(code);
    expect(listed.ids.slice(1).sort()).toEqual([sent, retrying, dead].sort());
    expect((await follow('/console/messages?from=2026-03-02T08:01Z&to=2026-03-02T08:02Z')).ids).toEqual([later]);
    // An hour's and a day's bar: the same messages, by their UTC instants.
    const hour = (await viewer.agent.get('/console/?range=24h')).text;
    expect(hour).toContain('href="/console/messages?from=2026-03-02T08:00Z&amp;to=2026-03-02T09:00Z"');
    expect(hour).toMatch(
      /<td data-label="Queued" class="number">6<\/td><td data-label="Messages"><a href="\/console\/messages\?from=2026-03-02T08:00Z&amp;to=2026-03-02T09:00Z">/,
    );
    expect((await follow('/console/messages?from=2026-03-02T08:00Z&to=2026-03-02T09:00Z')).rows).toBe(6);
    const month = (await viewer.agent.get('/console/?range=30d')).text;
    expect(month).toContain(
      '<td data-label="Period from"><time datetime="2026-03-02">2 Mar 2026</time></td><td data-label="Queued" class="number">6</td>',
    );
    expect((await follow('/console/messages?from=2026-03-02T00:00Z&to=2026-03-03T00:00Z')).rows).toBe(6);
    // In Arabic, with its plural form.
    const arabic = (await viewer.agent.get('/console/?range=1h').set('Cookie', 'sns_console_lang=ar')).text;
    expect(arabic).toContain('<summary>فترتان فيهما رسائل: روابطها</summary>');
    expect(arabic).toContain(`<a ${minute}>اعرض الرسائل`);
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
      ['from=2026-03-02T24:00Z', 'From: enter a date as YYYY-MM-DD, or a time in UTC as YYYY-MM-DDTHH:MMZ'],
      ['from=2026-03-02T08:00:00Z', 'From: enter a date as YYYY-MM-DD'],
      ['to=2026-02-30T08:00Z', 'To: enter a date as YYYY-MM-DD'],
      ['from=2026-03-02T08:00+03:00', 'From: enter a date as YYYY-MM-DD'],
      ['from=2026-03-02T08:01Z&to=2026-03-02T08:01Z', 'To: must be later than From'],
      ['from=2026-03-03&to=2026-03-02T23:59Z', 'To: must be later than From'],
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
