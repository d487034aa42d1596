// A school's time zone and quiet hours in the console, in a real browser
// (headless Chromium, as console.test.ts): an operator sets them by the
// labelled form, a mistake is named at the top with a link to its field, the
// school page shows them, and a held message's page says until when; every
// page passes axe and does not scroll sideways on a phone, in both languages.
import { type BrowserContext, type Page } from 'playwright-core';
import { addAccount, PASSWORD } from '../console/support';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { sqliteVariant } from '../support/stores';
import { checkPage, DESKTOP, PHONE, browseApp, signInTo, type BrowsedApp, shoot as shootPage } from './support';

const SCHOOL = 'https://school-a.example';

let service: OperatedService;
let served: BrowsedApp | undefined;
let base: string;
let context: BrowserContext;
let heldId: string;

beforeAll(async () => {
  service = await startOperatedService(sqliteVariant());
  await addAccount(service.store, 'olga', 'operator');
  heldId = await service.store.outbox.enqueuePushNotification({
    deviceId: 'dev-1001',
    studentId: '1001',
    type: 'note',
    title: 'New note',
    body: 'A new note',
    data: {},
    dueAt: '2099-01-01T06:30:00.000Z',
  });
  served = await browseApp(service.app);
  ({ base, context } = served);
});

afterAll(async () => {
  await served?.close();
  await service?.stop();
});

const shoot = (page: Page, name: string): Promise<void> => shootPage(page, `console-school-clock-${name}`);
const schoolPage = `/console/schools/students?school=${encodeURIComponent(SCHOOL)}`;

const signIn = (page: Page, lang: 'en' | 'ar', back: string): Promise<void> =>
  signInTo(page, base, lang, back, { name: 'olga', password: PASSWORD });

test('an operator sets a school time zone and quiet hours (desktop, English)', async () => {
  const page = await context.newPage();
  await page.setViewportSize(DESKTOP);
  await signIn(page, 'en', schoolPage);
  await page.getByRole('heading', { name: 'Time zone and quiet hours', level: 2 }).waitFor();
  await page.getByRole('link', { name: 'Edit the school' }).click();
  await page.getByLabel('Time zone').fill('Europe/Londres');
  await page.getByLabel('Quiet hours').fill('21:00-06:30');
  await page.getByRole('button', { name: 'Save' }).click();
  // The mistake is named at the top, linked to its field; nothing was saved.
  const summary = page.getByRole('alert');
  await summary.getByRole('link', { name: /Time zone: must be an IANA time zone name/ }).waitFor();
  await checkPage(page);
  await shoot(page, 'refused-desktop-en');
  await page.getByLabel('Time zone').fill('Europe/London');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The school was saved.').waitFor();
  const section = page.getByRole('region', { name: 'Time zone and quiet hours' });
  await section.getByText('Europe/London').waitFor();
  await section.getByText('21:00-06:30').waitFor();
  await checkPage(page);
  await shoot(page, 'school-desktop-en');
  await page.goto(`${base}/console/messages/push/${heldId}`);
  await page.getByText('Held until').waitFor();
  await checkPage(page);
  await shoot(page, 'held-desktop-en');
  await page.close();
});

test('in Arabic on a phone: the school page, its form and a held message, nothing scrolls sideways', async () => {
  const page = await context.newPage();
  await page.setViewportSize(PHONE);
  await signIn(page, 'ar', schoolPage);
  expect(await page.getAttribute('html', 'dir')).toBe('rtl');
  await page.getByRole('heading', { name: 'المنطقة الزمنية وساعات الهدوء', level: 2 }).waitFor();
  await checkPage(page);
  await shoot(page, 'school-phone-ar');
  await page.getByRole('link', { name: 'تعديل المدرسة' }).click();
  await page.getByLabel('ساعات الهدوء').waitFor();
  await checkPage(page);
  await shoot(page, 'form-phone-ar');
  await page.goto(`${base}/console/messages/push/${heldId}`);
  await page.getByText('مؤجَّلة حتى').waitFor();
  await checkPage(page);
  await shoot(page, 'held-phone-ar');
  await page.setViewportSize(DESKTOP);
  await page.goto(`${base}${schoolPage}`);
  await checkPage(page);
  await shoot(page, 'school-desktop-ar');
  await page.close();
});
