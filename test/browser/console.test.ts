// The operators' console in a real browser (headless Chromium, as
// help-pages.test.ts): a person signs in by the labelled form, reads the
// overview, switches to Arabic, signs out; every page passes axe and does not
// scroll sideways on a phone, in both languages. Screenshots go to
// test/browser/.screenshots/ (docs/screenshots/ holds copies, docs/console.md).
import { type BrowserContext, type Page } from 'playwright-core';
import pino from 'pino';
import { startImportRunner, type ImportRunner } from '../../src/console/import-runner';
import { addAccount, PASSWORD } from '../console/support';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { listenOnLoopback, type LoopbackListener } from '../support/service';
import { sqliteVariant } from '../support/stores';
import { checkPage, DESKTOP, launchBrowser, PHONE, type LaunchedBrowser, shoot as shootPage } from './support';

let service: OperatedService;
let server: LoopbackListener | undefined;
let base: string;
let browser: LaunchedBrowser | undefined;
let context: BrowserContext;
/** The roster imports' background slot, as a delivery worker beside the service runs it (WORKER=false here). */
let imports: ImportRunner | undefined;

/** A few messages of each outcome, so that the overview has figures, a chart and errors to show. */
async function seedOutbox(svc: OperatedService): Promise<void> {
  const { outbox } = svc.store;
  const outcomes = ['sent', 'sent', 'sent', 'sent', 'sent', 'failed', 'dead', 'dead', 'queued'] as const;
  for (const [i, outcome] of outcomes.entries()) {
    const id = await outbox.enqueuePushNotification({
      deviceId: 'dev-1001',
      studentId: '1001',
      type: 'absence',
      title: 'Absence',
      body: `Message ${i}`,
      data: {},
    });
    if (outcome === 'queued') continue;
    const [claimed] = await outbox.claimPushNotifications(1, 30);
    if (claimed?.id !== id) throw new Error('the seeded message was not the one claimed');
    const completion =
      outcome === 'sent'
        ? { status: 'sent' as const, providerMessageId: `p-${i}` }
        : outcome === 'failed'
          ? {
              status: 'failed' as const,
              retryAt: new Date(Date.now() + 3_600_000).toISOString(),
              error: 'http_503: HTTP 503 from FCM',
            }
          : { status: 'dead' as const, error: 'UNREGISTERED: the app was removed or its token expired' };
    await outbox.completeDeliveries([{ channel: 'push', id, claimToken: claimed.claimToken, completion }]);
  }
  await outbox.workerHeartbeat('worker-1.example/4242/5f2c9e1a', new Date().toISOString());
}

beforeAll(async () => {
  const sqlite = sqliteVariant();
  service = await startOperatedService(sqlite);
  await addAccount(service.store, 'amira', 'admin');
  await service.store.dataSet.writeDataSet({
    students: [
      { id: '3001', school: 'https://school-a.example', fullName: 'مُحَمَّد الحَسَن', deviceId: 'dev-1001', classId: '9A' },
    ],
  });
  await seedOutbox(service);
  // Two refused calls: a notification for a student whose token was removed, a login code past its limit.
  await service.store.outbox.recordRefusedCall({
    operation: 'SendNotificationType',
    reason: 'no_token',
    studentId: '3001',
    schoolKey: 'https://school-a.example',
    type: 'absence',
    phone: null,
  });
  await service.store.outbox.recordRefusedCall({
    operation: 'AuthCode',
    reason: 'auth_code_limit_phone',
    studentId: null,
    schoolKey: null,
    type: null,
    phone: '+963944123467',
  });
  const { store } = service;
  imports = startImportRunner({
    stores: { console: store.console, import: store.dataSet, access: store.access },
    limits: { maxRows: 200_000 },
    logger: pino({ level: 'silent' }),
  });
  server = await listenOnLoopback(service.app);
  base = server.base;
  browser = await launchBrowser();
  context = browser.context;
});

afterAll(async () => {
  await imports?.stop(10_000);
  await browser?.close();
  await server?.close();
  await service?.stop();
});

const shoot = (page: Page, name: string): Promise<void> => shootPage(page, `console-${name}`);

async function signIn(page: Page, labels: { name: string; password: string; button: string }): Promise<void> {
  await page.getByLabel(labels.name).fill('amira');
  await page.getByLabel(labels.password).fill(PASSWORD);
  await page.getByRole('button', { name: labels.button }).click();
  await page.waitForURL(`${base}/console/`);
}

/** The Preferences page's words in each language, as a person finds its parts. */
const PREFERENCES = {
  en: {
    signIn: { name: 'User name', password: 'Password', button: 'Sign in' },
    zone: 'Time zone',
    consoleDefault: 'Console default (UTC)',
    save: 'Save',
    saved: 'Your preferences are saved.',
  },
  ar: {
    signIn: { name: 'اسم المستخدم', password: 'كلمة المرور', button: 'تسجيل الدخول' },
    zone: 'المنطقة الزمنية',
    consoleDefault: 'الافتراضي لوحدة التحكم (UTC)',
    save: 'حفظ',
    saved: 'حُفظت تفضيلاتك.',
  },
} as const;

/**
 * Opens the Preferences page in `lang`, signing in first when the browser has no session, and sees the
 * account on the console's default, which the list names (each test that changes the zone goes back to it).
 */
async function openPreferences(page: Page, lang: keyof typeof PREFERENCES): Promise<void> {
  await page.goto(`${base}/console/lang/${lang}?back=%2Fconsole%2Fpreferences`);
  await page.waitForURL(/\/console\/(preferences|sign-in)/);
  if (page.url().endsWith('/sign-in')) {
    await signIn(page, PREFERENCES[lang].signIn);
    await page.goto(`${base}/console/preferences`);
  }
  expect(await page.getByLabel(PREFERENCES[lang].zone).inputValue()).toBe('');
  await page.getByRole('option', { name: PREFERENCES[lang].consoleDefault }).waitFor({ state: 'attached' });
}

/** Chooses `value` on the open Preferences page (a zone; empty: the console default), saves it, and sees it kept. */
async function saveZone(page: Page, lang: keyof typeof PREFERENCES, value: string): Promise<void> {
  const words = PREFERENCES[lang];
  await page.getByLabel(words.zone).selectOption({ value });
  await page.getByRole('button', { name: words.save }).click();
  await page.getByText(words.saved).waitFor();
  expect(await page.getByLabel(words.zone).inputValue()).toBe(value);
}

test('an operator signs in, reads the overview, and signs out (desktop, English)', async () => {
  const page = await context.newPage();
  await page.goto(`${base}/console/`);
  await page.waitForURL(`${base}/console/sign-in`);
  await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
  await checkPage(page);
  await shoot(page, 'sign-in');
  // A wrong password first: the error summary says so, and nothing is signed in.
  await page.getByLabel('User name').fill('amira');
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').getByText('The user name or the password is not right.').waitFor();
  await checkPage(page);
  await signIn(page, { name: 'User name', password: 'Password', button: 'Sign in' });
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  const push = page.getByRole('region', { name: 'Push notifications' });
  expect(await push.getByText('Dead').locator('xpath=..').locator('dd').textContent()).toBe('2');
  expect(await push.getByText('Sent', { exact: true }).locator('xpath=..').locator('dd').textContent()).toBe('5');
  await page.getByText('UNREGISTERED: the app was removed or its token expired').waitFor();
  await page.getByText('worker-1.example/4242/5f2c9e1a').waitFor();
  expect(await page.locator('svg[role=img]').count()).toBe(1);
  await checkPage(page);
  await shoot(page, 'overview-desktop-en');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${base}/console/sign-in?out=1`);
  await page.getByText('You are signed out.').waitFor();
  await page.goto(`${base}/console/`);
  await page.waitForURL(`${base}/console/sign-in`);
  await page.close();
});

test('in Arabic, right to left, on a phone: sign in, the overview, nothing scrolls sideways', async () => {
  const page = await context.newPage();
  await page.setViewportSize(PHONE);
  await page.goto(`${base}/console/sign-in`);
  await page.getByRole('link', { name: 'العربية' }).click();
  await page.waitForURL(`${base}/console/sign-in`);
  expect(await page.getAttribute('html', 'dir')).toBe('rtl');
  expect(await page.getAttribute('html', 'lang')).toBe('ar');
  await checkPage(page);
  await shoot(page, 'sign-in-phone-ar');
  await signIn(page, { name: 'اسم المستخدم', password: 'كلمة المرور', button: 'تسجيل الدخول' });
  await page.getByRole('heading', { name: 'نظرة عامة', level: 1 }).waitFor();
  await page.getByRole('region', { name: 'الإشعارات الفورية' }).waitFor();
  await checkPage(page);
  await shoot(page, 'overview-phone-ar');
  await page.setViewportSize(DESKTOP);
  await checkPage(page);
  await shoot(page, 'overview-desktop-ar');
  await page.getByRole('link', { name: 'English' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  await page.setViewportSize(PHONE);
  await checkPage(page);
  await shoot(page, 'overview-phone-en');
  await page.close();
});

test('an administrator adds an account on the Accounts page, and the new viewer cannot reach it', async () => {
  const page = await context.newPage();
  await page.goto(`${base}/console/lang/en?back=%2Fconsole%2Faccounts`);
  await page.waitForURL(/\/console\/(accounts|sign-in)/);
  if (page.url().endsWith('/sign-in')) {
    await page.getByLabel('User name').fill('amira');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/console/`);
  }
  await page.getByRole('link', { name: 'Accounts' }).click();
  await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
  await page.getByLabel('User name').fill('victor');
  await page.getByLabel('Password').fill('a viewer password');
  await page.getByLabel('Role').selectOption('viewer');
  await page.getByRole('button', { name: 'Add' }).click();
  await page.getByText('Account victor added.').waitFor();
  await checkPage(page);
  await shoot(page, 'accounts');
  expect((await service.store.console.getAccount('victor'))?.role).toBe('viewer');
  await page.close();
});

test('support finds a student by part of the name and reads why a notice did not arrive (desktop and phone, both languages)', async () => {
  const page = await context.newPage();
  await page.goto(`${base}/console/lang/en?back=%2Fconsole%2Fstudents`);
  await page.waitForURL(/\/console\/(students|sign-in)/);
  if (page.url().endsWith('/sign-in')) {
    await signIn(page, { name: 'User name', password: 'Password', button: 'Sign in' });
    await page.getByRole('link', { name: 'Students' }).click();
  }
  await page.getByLabel('Search students').fill('ahmad');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('status').getByText('2 students found.').waitFor();
  await checkPage(page);
  await page.getByRole('row').filter({ hasText: '1001' }).getByRole('link', { name: 'Ahmad Ali' }).click();
  await page.getByRole('heading', { name: 'Student Ahmad Ali', level: 1 }).waitFor();
  await page.getByText('The app is no longer registered on this phone').first().waitFor();
  expect(await page.getByText('fcm:AAAA-1001').count()).toBe(0);
  await checkPage(page);
  await shoot(page, 'student-desktop-en');
  // The administrator is an operator too: Reveal shows the whole token, once.
  await page.getByRole('button', { name: 'Reveal' }).click();
  await page.getByText('fcm:AAAA-1001').waitFor();
  await page.setViewportSize(PHONE);
  await checkPage(page);
  await shoot(page, 'student-phone-en');

  // One dead message: its attempts, then Resend with its confirmation; the page shows it queued.
  await page.setViewportSize(DESKTOP);
  await page.getByRole('row').filter({ hasText: 'Dead' }).first().getByRole('link', { name: 'absence' }).click();
  await page.getByRole('heading', { name: 'Attempts', level: 2 }).waitFor();
  await page.getByRole('cell', { name: 'Failed, given up' }).waitFor();
  await checkPage(page);
  await shoot(page, 'message-desktop-en');
  await page.getByRole('link', { name: 'Resend' }).click();
  await page.getByRole('button', { name: 'Yes, resend it' }).click();
  await page.getByText('The message is queued again').waitFor();
  expect(await page.locator('#message-status').textContent()).toBe('Queued');
  await page.setViewportSize(PHONE);
  await checkPage(page);
  await shoot(page, 'message-phone-en');

  // Arabic, typed without diacritics, finds the name written with them.
  await page.goto(`${base}/console/lang/ar?back=%2Fconsole%2Fstudents`);
  await page.getByLabel('ابحث عن الطلاب').fill('محمد');
  await page.getByRole('button', { name: 'بحث' }).click();
  await page.getByRole('link', { name: 'مُحَمَّد الحَسَن' }).click();
  await page.getByRole('heading', { name: 'الطالب مُحَمَّد الحَسَن', level: 1 }).waitFor();
  await checkPage(page);
  await shoot(page, 'student-phone-ar');
  await page.setViewportSize(DESKTOP);
  await checkPage(page);
  await shoot(page, 'student-desktop-ar');
  await page.close();
});

test('dead letters: grouped by who must act, one dismissed, the rest resent after a confirmation that restates the filter (phone, Arabic, then English)', async () => {
  // A second dead message, of another reason (the one before was resent on the student's page); what else is due is sent.
  const { outbox } = service.store;
  const extra = await outbox.enqueuePushNotification({
    deviceId: 'dev-1001',
    studentId: '3001',
    type: 'note',
    title: 'Note',
    body: 'Gave up',
    data: {},
  });
  const claimed = await outbox.claimPushNotifications(20, 30);
  await outbox.completeDeliveries(
    claimed.map((c) => ({
      channel: 'push' as const,
      id: c.id,
      claimToken: c.claimToken,
      completion:
        c.id === extra
          ? { status: 'dead' as const, error: 'gave up after 5 attempts; last: http_503: HTTP 503' }
          : { status: 'sent' as const, providerMessageId: `p-${c.id}` },
    })),
  );
  const page = await context.newPage();
  await page.setViewportSize(PHONE);
  await page.goto(`${base}/console/lang/ar?back=%2Fconsole%2Fdead`);
  await page.waitForURL(/\/console\/(dead|sign-in)/);
  if (page.url().endsWith('/sign-in')) {
    await signIn(page, { name: 'اسم المستخدم', password: 'كلمة المرور', button: 'تسجيل الدخول' });
    await page.getByRole('link', { name: 'الرسائل الفاشلة' }).click();
  }
  await page.getByRole('heading', { name: 'الرسائل الفاشلة نهائيًا', level: 1 }).waitFor();
  await page.getByText('يجب أن يفتح الأهل التطبيق على الهاتف').first().waitFor();
  await checkPage(page);
  await shoot(page, 'dead-phone-ar');
  // On a phone the navigation and the language link are behind the menu button.
  await page.getByText('القائمة').click();
  await page.getByRole('link', { name: 'English' }).click();
  // A group keeps the messages it explains.
  await page.getByRole('link', { name: /^The app is no longer registered on this phone/ }).click();
  await page.waitForURL(/reason=push-token-gone/);
  await page.getByRole('status').getByText('1 of 1 shown, the latest first.').waitFor();
  await page.getByRole('link', { name: 'All reasons' }).click();
  await page.getByRole('status').getByText('2 of 2 shown, the latest first.').waitFor();
  await checkPage(page);
  // Dismiss the latest: it leaves the list, and is shown on asking.
  await page.getByRole('button', { name: 'Dismiss' }).first().click();
  await page.getByText('The message was dismissed').waitFor();
  await page.getByRole('status').getByText('1 of 1 shown, the latest first.').waitFor();
  await checkPage(page);
  await shoot(page, 'dead-dismissed-phone-en');
  await page.getByRole('link', { name: 'Show the dismissed ones' }).click();
  await page
    .getByText(/^Dismissed/)
    .first()
    .waitFor();
  await checkPage(page);
  await page.getByRole('link', { name: 'Hide the dismissed ones' }).click();
  // Resend what is shown: a secondary action, whose confirmation restates the filter and leaves out permanent failures.
  await page.getByRole('link', { name: /^Resend these/ }).click();
  await page.getByText('These dead messages match the filter shown:').waitFor();
  await page.getByText('Failures that need a change first').waitFor();
  await checkPage(page);
  await shoot(page, 'dead-resend-confirm-phone-en');
  await page.setViewportSize(DESKTOP);
  await checkPage(page);
  await shoot(page, 'dead-resend-confirm-desktop-en');
  // The one left needs a change first: the question is about it (never "0 of these 1"), with no box to tick.
  await page.getByText('Every dead message shown (1) fails the same way until something changes first').waitFor();
  expect(await page.getByRole('checkbox').count()).toBe(0);
  await page.getByRole('button', { name: 'Yes, resend it' }).click();
  await page.getByText('1 message is queued again.').waitFor();
  await page.getByText('No dead messages.').waitFor();
  await page.close();
});

test("one message whole, a refused call, and times in the operator's zone (desktop and phone, both languages)", async () => {
  const page = await context.newPage();
  await openPreferences(page, 'en');
  await saveZone(page, 'en', 'Asia/Riyadh');
  await checkPage(page);
  await shoot(page, 'preferences-desktop-en');

  // The retrying message: whose it is, what was sent, each attempt to the second, the next try.
  await page.goto(`${base}/console/messages?status=retrying`);
  await page.getByRole('row').filter({ hasText: 'Retrying' }).first().getByRole('link').first().click();
  await page.getByRole('heading', { name: '“Absence” to Ahmad Ali', level: 1 }).waitFor();
  await page.getByText('Title sent').waitFor();
  await page
    .getByText(/GMT\+3/)
    .first()
    .waitFor();
  const title = await page.locator('time').first().getAttribute('title');
  expect(title).toMatch(/ UTC$/);
  await page
    .getByText(/^in \d+ min$/)
    .first()
    .waitFor();
  expect(await page.getByText('fcm:AAAA-1001').count()).toBe(0);
  await checkPage(page);
  await shoot(page, 'message-whole-desktop-en');
  await page.setViewportSize(PHONE);
  await checkPage(page);
  await shoot(page, 'message-whole-phone-en');
  await page.goto(`${base}/console/lang/ar?back=${encodeURIComponent(page.url().replace(base, ''))}`);
  await page.getByRole('heading', { name: '«غياب» إلى Ahmad Ali', level: 1 }).waitFor();
  await page
    .getByText(/غرينتش\+3/)
    .first()
    .waitFor();
  await checkPage(page);
  await shoot(page, 'message-whole-phone-ar');

  // Refused calls: in Messages as Refused with the reason, and on the student's page.
  await page.goto(`${base}/console/messages?status=refused`);
  await page.getByRole('cell', { name: 'مرفوض' }).first().waitFor();
  await shoot(page, 'messages-refused-phone-ar');
  await checkPage(page);
  await page.goto(`${base}/console/students/3001`);
  await page.getByRole('heading', { name: 'الطلبات المرفوضة، الأحدث أولًا', level: 2 }).waitFor();
  await checkPage(page);
  await page.setViewportSize(DESKTOP);
  await page.goto(`${base}/console/lang/en?back=%2Fconsole%2Fstudents%2F3001`);
  await page.getByRole('heading', { name: 'Refused calls, newest first', level: 2 }).waitFor();
  await page.getByText('the phone’s push token was removed').waitFor();
  await checkPage(page);
  await shoot(page, 'student-refused-desktop-en');
  // Back to the console's default: the zone is the account's, so the next tests' pages are in UTC again.
  await page.goto(`${base}/console/preferences`);
  await saveZone(page, 'en', '');
  await page.close();
});

test('the audit trail: console actions with their account, filtered by caller (desktop English, phone Arabic)', async () => {
  const page = await context.newPage();
  await page.goto(`${base}/console/lang/en?back=%2Fconsole%2Faudit`);
  await page.waitForURL(/\/console\/(audit|sign-in)/);
  if (page.url().endsWith('/sign-in')) {
    await signIn(page, { name: 'User name', password: 'Password', button: 'Sign in' });
    await page.getByRole('link', { name: 'Audit trail' }).click();
  }
  await page.getByLabel('Caller').fill('amira');
  await page.getByLabel('Operation').selectOption('resend');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page
    .getByRole('status')
    .getByText(/entries, newest first/)
    .waitFor();
  expect(await page.getByRole('cell', { name: 'console resend' }).count()).toBeGreaterThan(0);
  await checkPage(page);
  await shoot(page, 'audit-desktop-en');
  await page.setViewportSize(PHONE);
  await page.getByText('Menu', { exact: true }).click();
  await page.getByRole('link', { name: 'العربية' }).click();
  await page.getByRole('heading', { name: 'سجل التدقيق', level: 1 }).waitFor();
  await checkPage(page);
  await shoot(page, 'audit-phone-ar');
  await page.close();
});

test('an operator corrects a class and deactivates a student from the form', async () => {
  const page = await context.newPage();
  await page.goto(`${base}/console/lang/en?back=%2Fconsole%2Fstudents%2F1002`);
  await page.waitForURL(/\/console\/(students\/1002|sign-in)/);
  if (page.url().endsWith('/sign-in')) {
    await signIn(page, { name: 'User name', password: 'Password', button: 'Sign in' });
    await page.goto(`${base}/console/students/1002`);
  }
  await page.getByRole('link', { name: 'Edit', exact: true }).click();
  await page.getByLabel('Class').fill('');
  await page.getByLabel('Full name').fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('alert').getByRole('link').first().waitFor();
  await checkPage(page);
  await shoot(page, 'student-edit-error');
  await page.getByLabel('Full name').fill('أحمد علي حسن');
  await page.getByLabel('Class').fill('8C');
  await page.getByLabel('Active').selectOption('0');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The student was saved.').waitFor();
  expect(await service.store.admin.getRecord('students', '1002')).toMatchObject({ classId: '8C', active: '0' });
  await page.setViewportSize(PHONE);
  await checkPage(page);
  // Its device: the platform changes, the token (never shown in the form) stays.
  await page.setViewportSize(DESKTOP);
  await page.getByRole('link', { name: 'Edit the device' }).click();
  expect(await page.getByLabel('Push token').inputValue()).toBe('');
  await page.getByLabel('Platform').selectOption('web');
  await checkPage(page);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The device was saved.').waitFor();
  expect(await service.store.admin.getRecord('devices', 'dev-1002')).toMatchObject({
    platform: 'web',
    token: 'fcm:AAAA-1002',
  });
  await page.close();
});

test('an operator imports a roster: upload, the dry run with its refused rows, Apply, the report (English, the dry run also in Arabic)', async () => {
  const page = await context.newPage();
  await page.goto(`${base}/console/lang/en?back=%2Fconsole%2Fimport`);
  await page.waitForURL(/\/console\/(import|sign-in)/);
  if (page.url().endsWith('/sign-in')) {
    await signIn(page, { name: 'User name', password: 'Password', button: 'Sign in' });
    await page.getByRole('link', { name: 'Import' }).click();
  }
  await page.getByRole('heading', { name: 'Import a roster', level: 1 }).waitFor();
  await checkPage(page);
  const roster = [
    'id,school,fullName,classId,active',
    '1003,https://school-a.example,Yousef Darwish,6A,1',
    '7001,https://school-a.example,Huda Saleh,6A,1',
    '7002,https://school-a.example,رنا الخطيب,6B,1',
    '7003,https://unknown-school.example,Karim Aziz,6B,1',
    '7004,https://school-a.example,Maha Qasem,6B,yes',
  ].join('\n');
  await page
    .getByLabel('File')
    .setInputFiles({ name: 'class-6.csv', mimeType: 'text/csv', buffer: Buffer.from(roster) });
  await page.getByRole('button', { name: 'Check the file' }).click();
  await page.getByRole('heading', { name: 'Check of class-6.csv', level: 1 }).waitFor();
  await page.getByText('Nothing has been written yet.').waitFor();
  const students = page.getByRole('row').filter({ hasText: 'students' }).first();
  expect(await students.locator('td').allTextContents()).toEqual(['students', '3', '2', '1', '2']);
  await page
    .getByRole('row')
    .filter({ hasText: 'unknown-school.example' })
    .getByRole('cell', { name: 'school', exact: true })
    .waitFor();
  await page
    .getByRole('row')
    .filter({ hasText: 'active must be' })
    .getByRole('cell', { name: '6', exact: true })
    .waitFor();
  expect(await service.store.admin.getRecord('students', '7001')).toBeNull();
  await checkPage(page);
  await shoot(page, 'import-dry-run-desktop-en');
  await page.getByRole('link', { name: 'العربية' }).click();
  await page.getByRole('heading', { name: 'فحص class-6.csv', level: 1 }).waitFor();
  // The refusal reasons in Arabic, the school's address and the value given isolated in them; no English reason left.
  await page
    .getByRole('row')
    .filter({ hasText: 'unknown-school.example' })
    .getByRole('cell', { name: /^يشير school إلى مدرسة ليس مخزَّنًا ولا في هذا الاستيراد/ })
    .waitFor();
  const yes = page.getByRole('row').filter({ hasText: 'يجب أن يكون active 1 أو 0.' });
  expect(await yes.locator('td').allTextContents()).toEqual([
    '6',
    'students',
    'active',
    'yes',
    'يجب أن يكون active 1 أو 0.',
  ]);
  expect(await page.locator('main').innerText()).not.toMatch(/must be|neither stored/);
  await checkPage(page);
  await shoot(page, 'import-dry-run-desktop-ar');
  await page.setViewportSize(PHONE);
  await checkPage(page);
  await shoot(page, 'import-dry-run-phone-ar');
  await page.setViewportSize(DESKTOP);
  await page.getByRole('link', { name: 'English' }).click();
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByRole('heading', { name: 'Import of class-6.csv', level: 1 }).waitFor();
  await page.getByText('The file has been written:').waitFor();
  expect(await service.store.admin.getRecord('students', '7001')).toMatchObject({ fullName: 'Huda Saleh' });
  expect(await service.store.admin.getRecord('students', '1003')).toMatchObject({ fullName: 'Yousef Darwish' });
  await checkPage(page);
  await shoot(page, 'import-applied-desktop-en');
  const link = page.getByRole('link', { name: "Download the import's report (text)" });
  const report = await page.request.get(new URL((await link.getAttribute('href')) ?? '', base).toString());
  expect(report.status()).toBe(200);
  expect(await report.text()).toContain('students: 2 inserted, 1 updated, 2 rejected');
  await page.close();
});

test('support finds a login code by the last digits of the phone and pages through the messages (desktop and phone, both languages)', async () => {
  // Enough messages for a second page, and two login codes.
  for (let i = 0; i < 50; i++) {
    await service.store.outbox.enqueuePushNotification({
      deviceId: 'dev-1001',
      studentId: i % 2 === 0 ? '1001' : '3001',
      type: i % 5 === 0 ? 'note' : 'absence',
      title: 't',
      body: `Paged ${i}`,
      data: {},
    });
  }
  for (const phone of ['+963944123459', '+963955667788']) {
    const admitted = await service.store.outbox.admitAuthCode({ phone, code: '24680', callerAddress: null }, []);
    if (!admitted.admitted) throw new Error('a login code was refused with no limits');
  }
  const page = await context.newPage();
  await page.goto(`${base}/console/lang/en?back=%2Fconsole%2Fmessages`);
  await page.waitForURL(/\/console\/(messages|sign-in)/);
  if (page.url().endsWith('/sign-in')) {
    await signIn(page, { name: 'User name', password: 'Password', button: 'Sign in' });
    await page.getByRole('link', { name: 'Messages', exact: true }).click();
  }
  await page.getByRole('heading', { name: 'Messages', level: 1 }).waitFor();
  await page.getByRole('status').getByText('50 messages on this page, newest first.').waitFor();
  expect(await page.getByText('944123459').count()).toBe(0);
  await checkPage(page);
  await shoot(page, 'messages-desktop-en');
  await page.getByRole('link', { name: 'Older', exact: true }).click();
  await page.getByRole('link', { name: 'Newer', exact: true }).waitFor();
  await checkPage(page);

  // The filters are folded away until asked for; a status chosen there keeps them open.
  await page.getByText('Filters: status, channel, school, type, days').click();
  await page.getByLabel('Status').selectOption('retrying');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/status=retrying/);
  await page.getByRole('status').getByText('1 message on this page, newest first.').waitFor();
  await page.getByRole('cell', { name: /The provider had a fault or was unavailable/ }).waitFor();
  await checkPage(page);
  await shoot(page, 'messages-retrying-desktop-en');

  await page.goto(`${base}/console/messages`);
  await page.getByLabel('Find a message').fill('3459');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('status').getByText('1 message on this page, newest first.').waitFor();
  await page.getByRole('cell', { name: '+*********459' }).waitFor();
  expect(await page.getByText('944123459').count()).toBe(0);
  await checkPage(page);
  await shoot(page, 'messages-found-desktop-en');
  await page.setViewportSize(PHONE);
  await checkPage(page);
  await shoot(page, 'messages-found-phone-en');

  // A value the page does not take is named above the form.
  await page.goto(`${base}/console/messages?status=lost&from=2026-02-30`);
  await page.getByRole('alert').getByText('Status: choose one of the list').waitFor();
  await checkPage(page);
  await shoot(page, 'messages-invalid-phone-en');

  await page.goto(`${base}/console/lang/ar?back=${encodeURIComponent('/console/messages?channel=push')}`);
  await page.getByRole('heading', { name: 'الرسائل', level: 1 }).waitFor();
  await page.getByRole('status').getByText('50 رسالة في هذه الصفحة، الأحدث أولًا.').waitFor();
  await shoot(page, 'messages-phone-ar');
  await checkPage(page);
  await page.setViewportSize(DESKTOP);
  await checkPage(page);
  await shoot(page, 'messages-desktop-ar');
  await page.close();
});

test("the operator's time zone in Arabic: kept with the account, then the console default again (desktop)", async () => {
  const page = await context.newPage();
  await openPreferences(page, 'ar');
  await saveZone(page, 'ar', 'Asia/Riyadh');
  // The time now on the page, in the zone just saved.
  await page.getByText(/غرينتش\+3/).waitFor();
  await saveZone(page, 'ar', '');
  await checkPage(page);
  await shoot(page, 'preferences-desktop-ar');
  await page.close();
});
