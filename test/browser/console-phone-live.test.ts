// The console on a phone and live (docs/console.md#on-a-phone,
// docs/console.md#overview), in headless Chromium: on a 390 x 844 screen the
// header is one line with a menu button, every link, button, field and
// disclosure of every page is at least 44 x 44 px (measured with
// getBoundingClientRect, the menu closed and open), the chart's labels stay
// inside it; in both languages, every page passing axe. On a desktop the
// overview's figures change by themselves after a message is queued, with
// no reload. Screenshots go to test/browser/.screenshots/.
import { type BrowserContext, type Page } from 'playwright-core';
import type { DeliveryCompletion } from '../../src/store';
import { addAccount, completePush, PASSWORD } from '../console/support';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { sqliteVariant } from '../support/stores';
import {
  browseApp,
  checkPage,
  clippedLabels,
  DESKTOP,
  PHONE,
  queueNotification,
  shoot,
  smallTargets,
  type BrowsedApp,
} from './support';

let service: OperatedService;
let browsed: BrowsedApp | undefined;
let base: string;
let context: BrowserContext;
let deadId = '';

const LATIN_NAME = `O'Brien & <Sons> "Q`;

const queue = (svc: OperatedService, studentId: string, type: string): Promise<string> =>
  queueNotification(svc.store, studentId, type);

beforeAll(async () => {
  service = await startOperatedService(sqliteVariant());
  await addAccount(service.store, 'amira', 'admin');
  await service.store.dataSet.writeDataSet({
    students: [
      { id: '4001', school: 'https://school-a.example', fullName: 'أحمد سالم', deviceId: 'dev-1001', classId: '9A' },
      { id: '4002', school: 'https://school-a.example', fullName: 'إحمد فاطمة', deviceId: 'dev-1001', classId: '9A' },
      { id: '4003', school: 'https://school-a.example', fullName: LATIN_NAME, deviceId: 'dev-1001', classId: '9A' },
    ],
    absences: [{ id: 'a4001', studentId: '4001', date: '2026-11-20', type: 'full-day', reason: null, seen: false }],
  });
  const retryAt = new Date(Date.now() + 3_600_000).toISOString();
  const results: readonly DeliveryCompletion[] = [
    { status: 'sent', providerMessageId: 'p-0' },
    { status: 'sent', providerMessageId: 'p-1' },
    { status: 'failed', retryAt, error: 'http_503' },
    { status: 'dead', error: 'UNREGISTERED' },
  ];
  for (const [i, result] of results.entries()) {
    const id = await queue(service, i % 2 === 0 ? '4001' : '4003', 'absence');
    await completePush(service.store, id, result);
    if (result.status === 'dead') deadId = id;
  }
  await service.store.records.listAbsencesMarkSeen('4001');
  await service.store.outbox.workerHeartbeat('worker-1.example/4242/5f2c9e1a', new Date().toISOString());
  browsed = await browseApp(service.app);
  ({ base, context } = browsed);
});

afterAll(async () => {
  await browsed?.close();
  await service?.stop();
});

async function signedInPage(lang: 'en' | 'ar'): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${base}/console/lang/${lang}?back=%2Fconsole%2F`);
  if (page.url().endsWith('/sign-in')) {
    await page.locator('#name').fill('amira');
    await page.locator('#password').fill(PASSWORD);
    await page.locator('form button[type=submit]').click();
    await page.waitForURL(`${base}/console/`);
  }
  return page;
}

const PAGES = (): string[] => [
  '/console/',
  '/console/?range=7d',
  '/console/messages',
  '/console/students?q=%D8%A7%D8%AD%D9%85%D8%AF',
  '/console/students/4003',
  `/console/messages/push/${deadId}`,
  '/console/dead',
  '/console/schools',
  '/console/audit',
  '/console/import',
  '/console/accounts',
];

describe.each(['en', 'ar'] as const)('on a phone in %s', (lang) => {
  it('has a one-line header with a menu, tap targets of 44 px and more, charts with their labels, on every page', async () => {
    const page = await signedInPage(lang);
    await page.setViewportSize(PHONE);
    const found: Record<string, string[]> = {};
    for (const path of PAGES()) {
      await page.goto(`${base}${path}`);
      await page.locator('h1').waitFor();
      const header = await page.locator('header.top').boundingBox();
      expect({ path, height: (header?.height ?? 0) <= 60 }).toEqual({ path, height: true });
      found[path] = await smallTargets(page);
      await checkPage(page);
      if (path === '/console/' || path === '/console/students/4003')
        await shoot(page, `console-phone-${lang}-${path.split('/')[2] || 'overview'}`);
      // The menu opens below the line, every link in it as large.
      await page.locator('header .menu > summary').click();
      await page.locator('header nav').waitFor();
      found[`${path} (menu open)`] = await smallTargets(page);
      if (path === '/console/') {
        await checkPage(page);
        await shoot(page, `console-phone-${lang}-menu`);
      }
      expect({ path, clipped: await clippedLabels(page) }).toEqual({ path, clipped: [] });
    }
    for (const [path, small] of Object.entries(found)) expect({ path, small }).toEqual({ path, small: [] });
    await page.close();
  });
});

test.each(['en', 'ar'] as const)(
  'the overview changes its figures by itself after a message is queued, without a reload (%s)',
  async (lang) => {
    const page = await signedInPage(lang);
    await page.setViewportSize(DESKTOP);
    await page.goto(`${base}/console/`);
    // The measurement of the phone test can fail: on a desktop the header's links are smaller than 44 px.
    expect((await smallTargets(page)).length).toBeGreaterThan(0);
    const queued = page.locator('[data-live="push.queued"]');
    const before = Number(await queued.textContent());
    let asked = 0;
    page.on('request', (request) => {
      if (request.url().endsWith('/console/overview.json')) asked++;
    });
    await queue(service, '4002', 'absence');
    // The page's CSP allows no evaluated script, so the test reads the figure until it changes.
    const deadline = Date.now() + 15_000;
    while ((await queued.textContent()) !== String(before + 1) && Date.now() < deadline) await page.waitForTimeout(250);
    expect(await queued.textContent()).toBe(String(before + 1));
    expect(asked).toBeGreaterThan(0);
    expect(await page.evaluate<boolean>('performance.getEntriesByType("navigation").length === 1')).toBe(true);
    await checkPage(page);
    await shoot(page, `console-overview-live-desktop-${lang}`);
    await page.close();
  },
);

test('Arabic search folds hamza forms, and a Latin name in an Arabic title stays whole', async () => {
  const page = await signedInPage('ar');
  await page.setViewportSize(DESKTOP);
  await page.goto(`${base}/console/students?q=${encodeURIComponent('احمد')}`);
  await page.getByRole('link', { name: 'أحمد سالم' }).waitFor();
  await page.getByRole('link', { name: 'إحمد فاطمة' }).waitFor();
  await checkPage(page);
  await shoot(page, 'console-search-folded-desktop-ar');
  await page.goto(`${base}/console/students/4003`);
  expect(await page.locator('h1 bdi').textContent()).toBe(LATIN_NAME);
  expect(await page.locator('h1').textContent()).toBe(`الطالب ${LATIN_NAME}`);
  expect(await page.title()).toContain(`\u2068${LATIN_NAME}\u2069`);
  await shoot(page, 'console-student-latin-desktop-ar');
  await page.close();
});
