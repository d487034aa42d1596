// A school's FCM project in the console, in a real browser (headless
// Chromium, as console.test.ts): with projects configured, the school's form
// offers them in a labelled select, an operator picks one and it is saved;
// the form passes axe and does not scroll sideways on a phone, in both languages.
import { type BrowserContext, type Page } from 'playwright-core';
import { setKnownFcmProjects } from '../../src/domain/fcm-project';
import { addAccount, PASSWORD } from '../console/support';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { sqliteVariant } from '../support/stores';
import { checkPage, DESKTOP, PHONE, browseApp, signInTo, type BrowsedApp, shoot as shootPage } from './support';

const SCHOOL = 'https://school-a.example';

let service: OperatedService;
let served: BrowsedApp | undefined;
let base: string;
let context: BrowserContext;

beforeAll(async () => {
  setKnownFcmProjects(['vendor-a', 'vendor-b']);
  service = await startOperatedService(sqliteVariant());
  await addAccount(service.store, 'olga', 'operator');
  served = await browseApp(service.app);
  ({ base, context } = served);
});

afterAll(async () => {
  await served?.close();
  await service?.stop();
  setKnownFcmProjects([]);
});

const shoot = (page: Page, name: string): Promise<void> => shootPage(page, `console-school-fcm-project-${name}`);
const editPage = `/console/schools/edit?school=${encodeURIComponent(SCHOOL)}`;

const signIn = (page: Page, lang: 'en' | 'ar', back: string): Promise<void> =>
  signInTo(page, base, lang, back, { name: 'olga', password: PASSWORD });

test('an operator puts a school on another FCM project (desktop, English)', async () => {
  const page = await context.newPage();
  await page.setViewportSize(DESKTOP);
  await signIn(page, 'en', editPage);
  const select = page.getByLabel('FCM project');
  expect(await select.inputValue()).toBe('');
  await checkPage(page);
  await shoot(page, 'form-desktop-en');
  await select.selectOption('vendor-b');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The school was saved.').waitFor();
  expect(await service.store.admin.getRecord('schools', SCHOOL)).toMatchObject({ fcmProject: 'vendor-b' });
  await page.goto(`${base}${editPage}`);
  expect(await page.getByLabel('FCM project').inputValue()).toBe('vendor-b');
  await page.close();
});

test('in Arabic on a phone: the form with its select, nothing scrolls sideways', async () => {
  const page = await context.newPage();
  await page.setViewportSize(PHONE);
  await signIn(page, 'ar', editPage);
  expect(await page.getAttribute('html', 'dir')).toBe('rtl');
  await page.getByLabel('مشروع FCM').waitFor();
  await checkPage(page);
  await shoot(page, 'form-phone-ar');
  await page.close();
});
