// A school's delivery-event subscription on the console's school page, in a
// real browser (docs/console.md#delivery-events): an operator sets one up by
// the labelled form and copies the secret shown once; a failing one reads
// right in English and Arabic, on a desktop and on a phone; a refused URL is
// named in the page's language. Every page passes axe and does not scroll
// sideways (support.ts).
import { type BrowserContext, type Page } from 'playwright-core';
import { addAccount, PASSWORD } from '../console/support';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { sqliteVariant } from '../support/stores';
import { browseApp, checkPage, DESKTOP, PHONE, type BrowsedApp, shoot as shootPage } from './support';

const SCHOOL_A = 'https://school-a.example';
const SCHOOL_B = 'https://school-b.example/';
const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

let service: OperatedService;
let browsed: BrowsedApp | undefined;
let base: string;
let context: BrowserContext;

const schoolPage = (school: string) => `${base}/console/schools/students?school=${encodeURIComponent(school)}`;
const shoot = (page: Page, name: string): Promise<void> => shootPage(page, `console-school-events-${name}`);

/** School B's receiver has answered 503 for two hours: failing, one event to retry. */
async function seedFailing(svc: OperatedService): Promise<void> {
  const { admin, outbox } = svc.store;
  await admin.putEventSubscription(SCHOOL_B, {
    url: 'https://hooks.school-b.example/notifications/events',
    secret: SECRET,
  });
  await outbox.enqueuePushNotification({
    deviceId: 'dev-2001',
    studentId: '2001',
    type: 'absence',
    title: 'Absence',
    body: 'Absent today',
    data: {},
  });
  const [event] = await outbox.claimEvents(10, 4, 30);
  if (event === undefined) throw new Error('no event to claim');
  await outbox.completeEvents(
    [
      {
        id: event.id,
        claimToken: event.claimToken,
        schoolKey: event.schoolKey,
        completion: {
          status: 'failed',
          retryAt: new Date(Date.now() + 600_000).toISOString(),
          error: 'http_503: the receiver answered 503 Service Unavailable',
        },
      },
    ],
    // Failing at the first failure: this page is about how it reads.
    { failingAfterMs: 0, disableAfterMs: 86_400_000 },
  );
}

beforeAll(async () => {
  service = await startOperatedService(sqliteVariant());
  await addAccount(service.store, 'olga', 'operator');
  await seedFailing(service);
  browsed = await browseApp(service.app);
  base = browsed.base;
  context = browsed.context;
});

afterAll(async () => {
  await browsed?.close();
  await service?.stop();
});

/** Signs in afresh (no session, no language cookie left by another test) in `lang`. */
async function signIn(page: Page, lang: 'en' | 'ar'): Promise<void> {
  await context.clearCookies();
  await page.goto(`${base}/console/sign-in`);
  const current = await page.getAttribute('html', 'lang');
  if (current !== lang) {
    await page.getByRole('link', { name: lang === 'ar' ? 'العربية' : 'English' }).click();
    await page.waitForURL(`${base}/console/sign-in`);
  }
  await page.getByLabel(lang === 'ar' ? 'اسم المستخدم' : 'User name').fill('olga');
  await page.getByLabel(lang === 'ar' ? 'كلمة المرور' : 'Password').fill(PASSWORD);
  await page.getByRole('button', { name: lang === 'ar' ? 'تسجيل الدخول' : 'Sign in' }).click();
  await page.waitForURL(`${base}/console/`);
}

test('an operator sets up delivery events and copies the secret shown once (desktop, English)', async () => {
  const page = await context.newPage();
  await page.setViewportSize(DESKTOP);
  await signIn(page, 'en');
  await page.goto(schoolPage(SCHOOL_A));
  const section = page.getByRole('region', { name: 'Delivery events' });
  await section.getByText("No subscription: the school's system hears nothing of its messages.").waitFor();
  await checkPage(page);
  await section.getByRole('link', { name: 'Set up delivery events' }).click();
  await page.getByRole('heading', { name: 'Delivery events of School A', level: 1 }).waitFor();
  // A refused address first: named at the top, linked to its field.
  await page.getByLabel('Receiver').fill('http://hooks.school-a.example/in');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('alert').getByRole('link', { name: 'The address must start https://.' }).waitFor();
  await checkPage(page);
  await shoot(page, 'form-refused-desktop-en');
  await page.getByLabel('Receiver').fill('https://hooks.school-a.example/in');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('heading', { name: 'Copy the signing secret now', level: 1 }).waitFor();
  const secret = (await page.locator('#events-made-secret').textContent()) ?? '';
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  await checkPage(page);
  await shoot(page, 'secret-desktop-en');
  await page.getByRole('link', { name: 'Done: back to the school' }).click();
  await page.getByRole('heading', { name: 'School A', level: 1 }).waitFor();
  const shown = page.getByRole('region', { name: 'Delivery events' });
  await shown.getByText('https://hooks.school-a.example/in').waitFor();
  expect(await page.locator('#events-state').textContent()).toBe('Active');
  expect(await page.content()).not.toContain(secret.slice(6));
  await checkPage(page);
  await shoot(page, 'active-desktop-en');
  await page.close();
});

for (const [lang, size, sizeName] of [
  ['en', DESKTOP, 'desktop'],
  ['en', PHONE, 'phone'],
  ['ar', DESKTOP, 'desktop'],
  ['ar', PHONE, 'phone'],
] as const) {
  test(`a failing subscription reads right (${sizeName}, ${lang})`, async () => {
    const page = await context.newPage();
    await page.setViewportSize(size);
    await signIn(page, lang);
    await page.goto(schoolPage(SCHOOL_B));
    expect(await page.getAttribute('html', 'dir')).toBe(lang === 'ar' ? 'rtl' : 'ltr');
    const section = page.getByRole('region', { name: lang === 'ar' ? 'أحداث التسليم' : 'Delivery events' });
    await section.getByText('https://hooks.school-b.example/notifications/events').waitFor();
    expect(await page.locator('#events-state').textContent()).toBe(lang === 'ar' ? 'متعثّر' : 'Failing');
    await section.getByText('http_503: the receiver answered 503 Service Unavailable').waitFor();
    expect(await page.content()).not.toContain(SECRET.slice(6));
    await checkPage(page);
    await shoot(page, `failing-${sizeName}-${lang}`);
    await section.getByRole('link', { name: lang === 'ar' ? 'غيّر الاشتراك' : 'Change the subscription' }).click();
    await page.locator('#events-url').waitFor();
    await checkPage(page);
    await shoot(page, `form-${sizeName}-${lang}`);
    await page.close();
  });
}

test('removing asks first, then the school has no subscription (phone, Arabic)', async () => {
  const page = await context.newPage();
  await page.setViewportSize(PHONE);
  await signIn(page, 'ar');
  await page.goto(schoolPage(SCHOOL_A));
  await page.getByRole('link', { name: 'احذف الاشتراك' }).click();
  await page.getByRole('button', { name: 'نعم، احذفه' }).waitFor();
  await checkPage(page);
  await shoot(page, 'remove-phone-ar');
  await page.getByRole('button', { name: 'نعم، احذفه' }).click();
  await page.getByText('حُذف اشتراك الأحداث مع أحداثه غير المسلَّمة.').waitFor();
  await page.getByText('لا اشتراك: لا يعلم نظام المدرسة شيئًا عن رسائلها.').waitFor();
  await checkPage(page);
  await page.close();
});
