// The overview live and read-through (docs/console.md#overview): its figures
// served as JSON for the overview's own script (served by the console, the
// CSP allowing it and no inline script), a range choice for the chart with
// each bucket's figures on hover, retrying and dead told apart, and the
// funnel per day, school and type: queued, accepted by the provider, read in
// the app (UpdateNoteState's notes, GetStudentsAbcenceByID's seen absences).
import request from 'supertest';
import { schoolKey } from '../../src/domain';
import type { OpenedStore } from '../../src/store';
import { storeVariants } from '../support/stores';
import { completePush, useConsoleWorld, signedIn } from './support';

const SCHOOL_A = schoolKey('https://school-a.example');

function queue(store: OpenedStore, studentId: string, type: string): Promise<string> {
  return store.outbox.enqueuePushNotification({
    deviceId: `dev-${studentId}`,
    studentId,
    type,
    title: 't',
    body: 'b',
    data: {},
  });
}

describe.each(storeVariants())('the overview on $name', (variant) => {
  const world = useConsoleWorld(variant);

  it('counts per day, school and type what was queued, accepted by the provider, and read in the app afterwards', async () => {
    const { store } = world.ctx;
    const sent = await queue(store, '1001', 'absence');
    const dead = await queue(store, '1001', 'absence');
    const note = await queue(store, '1002', 'audit');
    expect(await completePush(store, sent, { status: 'sent', providerMessageId: null })).toBe(true);
    expect(await completePush(store, dead, { status: 'dead', error: 'UNREGISTERED' })).toBe(true);
    expect(await completePush(store, note, { status: 'sent', providerMessageId: null })).toBe(true);
    world.clock.advance(60_000);
    // The parents open the absences (1001) and the follow-up notes (1002) in the app.
    await store.records.listAbsencesMarkSeen('1001');
    await store.records.markNotesRead('1002', 'audit');
    world.clock.advance(60_000);
    // Queued after the reading: not read.
    await queue(store, '1002', 'audit');

    const rows = await store.console.readFunnel('2026-03-01', 50);
    expect(rows).toEqual([
      { day: '2026-03-02', school: SCHOOL_A, type: 'absence', queued: 2, accepted: 1, read: 2 },
      { day: '2026-03-02', school: SCHOOL_A, type: 'audit', queued: 2, accepted: 1, read: 1 },
    ]);
    expect(await store.console.readFunnel('2026-03-03', 50)).toEqual([]);

    const browser = await signedIn(world.harness.app, 'victor');
    const page = (await browser.agent.get('/console/?range=7d')).text;
    expect(page).toContain('Read-through per school and type, per day');
    expect(page).toContain(
      '<td data-label="Queued" class="number">2</td><td data-label="Accepted by the provider" class="number">1 <bdi class="share">(50%)</bdi></td><td data-label="Read in the app" class="number">2 <bdi class="share">(100%)</bdi></td>',
    );
    // In Arabic each share is isolated from its count, the space between them outside it: the count reads first
    // (test/browser/console-flows.test.ts measures it).
    const arabic = (await browser.agent.get('/console/?range=7d').set('Cookie', 'sns_console_lang=ar')).text;
    expect(arabic).toContain('class="number">1 <bdi class="share">(\u2068' + '50\u200e%\u200e\u2069)</bdi></td>');
    // A school links to its messages of that type and day.
    expect(page).toContain(
      `/console/messages?channel=push&amp;type=absence&amp;from=2026-03-02&amp;to=2026-03-02&amp;school=${encodeURIComponent(SCHOOL_A)}`,
    );
  });

  it('answers its live figures as JSON, which change when a message is queued', async () => {
    const browser = await signedIn(world.harness.app, 'victor');
    const first = await browser.agent.get('/console/overview.json');
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body.figures['push.queued']).toEqual({ text: '0', tone: '' });
    expect(first.body.figures.due).toEqual({ text: 'Nothing is waiting to be sent.', tone: '' });
    const id = await queue(world.ctx.store, '1001', 'absence');
    await queue(world.ctx.store, '1002', 'absence');
    world.clock.advance(6 * 60_000);
    const second = (await browser.agent.get('/console/overview.json')).body;
    expect(second.figures['push.queued']).toEqual({ text: '2', tone: '' });
    expect(second.figures.due).toEqual({ text: 'Oldest due message has waited: 6 minutes', tone: 'given-up' });
    await completePush(world.ctx.store, id, {
      status: 'failed',
      retryAt: '2026-03-02T09:00:00.000Z',
      error: 'http_503',
    });
    const third = (await browser.agent.get('/console/overview.json')).body;
    expect(third.figures['push.failed']).toEqual({ text: '1', tone: 'retrying' });
    // In the page's language.
    const arabic = await browser.agent.get('/console/overview.json').set('Cookie', 'sns_console_lang=ar');
    expect(arabic.body.figures.due.text).toContain('أقدم رسالة مستحقة تنتظر منذ');
    // Signed out: the sign-in page, no figures.
    const unsigned = await request(world.harness.app).get('/console/overview.json');
    expect(unsigned.status).toBe(303);
    expect(unsigned.headers.location).toBe('/console/sign-in');
  });

  it('draws the page with its script file (no inline script), retrying apart from dead, and a range choice', async () => {
    const { store } = world.ctx;
    const retrying = await queue(store, '1001', 'absence');
    const dead = await queue(store, '1002', 'absence');
    await completePush(store, retrying, { status: 'failed', retryAt: '2026-03-02T09:00:00.000Z', error: 'http_503' });
    await completePush(store, dead, { status: 'dead', error: 'UNREGISTERED' });
    const browser = await signedIn(world.harness.app, 'victor');
    const res = await browser.agent.get('/console/');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
    const scripts = res.text.match(/<script[^>]*>/g) ?? [];
    expect(scripts).toEqual(['<script src="/console/overview.js" defer>']);
    expect(res.text).toContain('<div class="stat retrying on" data-live-box="push.failed"><dt>Retrying</dt>');
    expect(res.text).toContain('<div class="stat given-up on" data-live-box="push.dead"><dt>Dead</dt>');
    expect(res.text).toContain('<div class="stat retrying" data-live-box="sms.failed"><dt>Retrying</dt>');
    // The last hour by default, per minute, each minute's figures on hover.
    expect(res.text).toContain('<figcaption id="chart-60">Per minute, last hour (UTC)</figcaption>');
    expect(res.text).toContain('<title>08:00: Sent 0, Retrying 1, Given up 1</title>');
    expect(res.text).toContain('<a href="/console/?range=1h" aria-current="page">1 hour</a>');
    const month = await browser.agent.get('/console/?range=30d');
    expect(month.text).toContain('<figcaption id="chart-30">Per day, last 30 days (UTC)</figcaption>');
    expect(month.text).toContain('<title>2 Mar: Sent 0, Retrying 1, Given up 1</title>');
    // In Arabic with the Arabic comma between the figures.
    const arabic = await browser.agent.get('/console/?range=30d').set('Cookie', 'sns_console_lang=ar');
    expect(arabic.text).toMatch(/<title>[^<]+: أُرسلت 0، تُعاد محاولتها 1، توقّف إرسالها 1<\/title>/);
    expect((await browser.agent.get('/console/?range=24h')).text).toContain('Per hour, last 24 hours (UTC)');
    expect((await browser.agent.get('/console/?range=forever')).text).toContain('Per minute, last hour (UTC)');

    const script = await browser.agent.get('/console/overview.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.text).toContain("fetch(URL, { credentials: 'same-origin'");
    expect(script.text).toContain('visibilitychange');
    const again = await browser.agent.get('/console/overview.js').set('If-None-Match', String(script.headers.etag));
    expect(again.status).toBe(304);
  });
});
