// The help pages in a real browser (headless Chromium from the OS, driven by
// playwright-core): a person opens /, finds an operation, reads its samples
// and invokes it from the form; every page passes axe's accessibility rules
// on a desktop and on a phone-sized screen. Screenshots go to
// test/browser/.screenshots/ for a person to look at.
import { type BrowserContext, type Page, type Response } from 'playwright-core';
import { DEMO_DATA } from '../../src/store';
import { listenOnLoopback, startTestService, type LoopbackListener, type TestService } from '../support/service';
import { checkPage, DESKTOP, launchBrowser, PHONE, type LaunchedBrowser, shoot } from './support';

let service: TestService;
let server: LoopbackListener | undefined;
let base: string;
let browser: LaunchedBrowser | undefined;
let context: BrowserContext;

beforeAll(async () => {
  service = await startTestService({ data: DEMO_DATA });
  server = await listenOnLoopback(service.app);
  base = server.base;
  browser = await launchBrowser();
  context = browser.context;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await service?.close();
});

/** From the root page to an operation's page, by the links a person would click. */
async function openOperation(page: Page, endpoint: string, operation: string, shots: boolean): Promise<void> {
  await page.goto(`${base}/`);
  if (shots) await shoot(page, '1-root');
  await page.getByRole('heading', { name: endpoint }).getByRole('link').click();
  await page.waitForURL(`${base}/${endpoint}.asmx`);
  if (shots) await shoot(page, `2-${endpoint}`);
  await page.getByRole('main').getByRole('link', { name: operation, exact: true }).click();
  await page.waitForURL(`${base}/${endpoint}.asmx?op=${operation}`);
  await page.getByRole('heading', { name: operation, level: 2 }).waitFor();
  if (shots) await shoot(page, `3-${operation}`);
}

/** Fills the test form by its labels and clicks Invoke; the answer opens in a new window. */
async function invoke(
  page: Page,
  values: Record<string, string>,
  shot: string,
): Promise<{ response: Response; body: string }> {
  for (const [name, value] of Object.entries(values)) await page.getByLabel(`${name}:`).fill(value);
  const answer = page.context().waitForEvent('response', (r) => r.request().method() === 'POST');
  const popup = page.waitForEvent('popup');
  await page.getByRole('button', { name: 'Invoke' }).click();
  const [response, window] = await Promise.all([answer, popup]);
  await window.waitForLoadState();
  const body = await response.text();
  await shoot(window, shot);
  await window.close();
  expect(response.request().headers()['content-type']).toBe('application/x-www-form-urlencoded');
  return { response, body };
}

const ordinal = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

test('GetStudentSchool: from / to the operation, Invoke answers the ArrayOfStudentInfo of the demo school', async () => {
  const page = await context.newPage();
  await openOperation(page, 'NotificationNotes', 'GetStudentSchool', true);
  const school = 'https://alnoor.school.example';
  const { response, body } = await invoke(
    page,
    { school_base_url: school, show_active: '1' },
    '4-GetStudentSchool-answer',
  );

  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toBe('text/xml; charset=utf-8');
  expect(body).toMatch(
    /^<\?xml version="1.0" encoding="utf-8"\?>\r\n<ArrayOfStudentInfo [^>]*xmlns="http:\/\/tempuri.org\/">/,
  );
  const expected = (DEMO_DATA.students ?? [])
    .filter((s) => s.school === school && s.active === '1')
    .sort((a, b) => ordinal(a.fullName, b.fullName) || ordinal(a.id, b.id));
  expect(
    [...body.matchAll(/<id_student>([^<]*)<\/id_student>\r\n {4}<fullName>([^<]*)</g)].map((m) => [m[1], m[2]]),
  ).toEqual(expected.map((s) => [s.id, s.fullName]));
  await page.close();
});

test('GetTokenDevice: Invoke answers the device token as a string element', async () => {
  const page = await context.newPage();
  await openOperation(page, 'PushNotificationMobile', 'GetTokenDevice', false);
  await shoot(page, '3-GetTokenDevice');
  const device = (DEMO_DATA.devices ?? []).find((d) => d.token !== null);
  const { response, body } = await invoke(page, { id: device?.id ?? '' }, '4-GetTokenDevice-answer');
  expect(response.status()).toBe(200);
  expect(body).toBe(
    `<?xml version="1.0" encoding="utf-8"?>\r\n<string xmlns="http://tempuri.org/">${device?.token}</string>`,
  );
  await page.close();
});

test('SendNotificationType (void): Invoke answers 200 with an empty body and the push is queued', async () => {
  const page = await context.newPage();
  await openOperation(page, 'NotificationNotes', 'SendNotificationType', false);
  await shoot(page, '3-SendNotificationType');
  const { response, body } = await invoke(
    page,
    { id: '1001', baseUrlSchool: 'https://alnoor.school.example', TypeNotfication: 'absence' },
    '4-SendNotificationType-answer',
  );
  expect(response.status()).toBe(200);
  expect(body).toBe('');
  expect(response.headers()['content-type']).toBeUndefined();
  expect((await service.store.admin.listPushNotifications()).map((n) => [n.studentId, n.type, n.status])).toEqual([
    ['1001', 'absence', 'queued'],
  ]);
  await page.close();
});

const PAGES: [string, string][] = [
  ['root', '/'],
  ['operation-list', '/NotificationNotes.asmx'],
  ['operation', '/NotificationNotes.asmx?op=GetStudentSchool'],
  ['not-found', '/NotificationNotes.asmx?op=Nope'],
];

describe.each([
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const)('on a %s screen', (screen, viewport) => {
  test.each(PAGES)(
    'the %s page passes axe (WCAG 2.1 AA and best practice) and does not scroll sideways',
    async (name, url) => {
      const page = await context.newPage();
      await page.setViewportSize(viewport);
      await page.goto(base + url);
      if (screen === 'phone') await shoot(page, `phone-${name}`);
      await checkPage(page);
      await page.close();
    },
  );
});
