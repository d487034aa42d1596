// What the browser tests share: headless Chromium from the OS driven by
// playwright-core, with the flags that keep it off the network; screenshots
// in test/browser/.screenshots/ for a person to look at; and the page check
// every page must pass (axe's WCAG 2.1 AA and best-practice rules, and no
// sideways scrolling).
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { App } from '../../src/server';
import type { OpenedStore } from '../../src/store';
import { addAccount } from '../console/support';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { listenOnLoopback } from '../support/service';
import { sqliteVariant } from '../support/stores';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.join(__dirname, '.screenshots');
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export interface LaunchedBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium with a fresh profile, at desktop size. */
export async function launchBrowser(): Promise<LaunchedBrowser> {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-chromium-'));
  mkdirSync(SCREENSHOTS, { recursive: true });
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: DESKTOP,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export interface BrowsedApp {
  /** `http://127.0.0.1:PORT`. */
  readonly base: string;
  readonly context: BrowserContext;
  /** Closes the browser, then the listener. */
  close(): Promise<void>;
}

/** `app` listening on a loopback port, and a fresh Chromium to browse it. */
export async function browseApp(app: App): Promise<BrowsedApp> {
  const server = await listenOnLoopback(app);
  const browser = await launchBrowser().catch(async (err: unknown) => {
    await server.close();
    throw err;
  });
  return {
    base: server.base,
    context: browser.context,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * Opens `back` in the console in `lang` as `user`, signing in on the way when
 * the browser context has no session yet (an earlier test's is kept: then
 * only the language changes).
 */
export async function signInTo(
  page: Page,
  base: string,
  lang: 'en' | 'ar',
  back: string,
  user: { readonly name: string; readonly password: string },
): Promise<void> {
  await page.goto(`${base}/console/lang/${lang}?back=${encodeURIComponent(back)}`);
  if (!page.url().includes('/console/sign-in')) return;
  const labels =
    lang === 'en'
      ? { name: 'User name', password: 'Password', button: 'Sign in' }
      : { name: 'اسم المستخدم', password: 'كلمة المرور', button: 'تسجيل الدخول' };
  await page.getByLabel(labels.name).fill(user.name);
  await page.getByLabel(labels.password).fill(user.password);
  await page.getByRole('button', { name: labels.button }).click();
  await page.waitForURL(`${base}/console/`);
  await page.goto(`${base}${back}`);
}

/** A full-page screenshot named `name`.png in SCREENSHOTS. */
export async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

interface Violation {
  id: string;
  help: string;
  targets: string[];
}

/** axe's WCAG 2.1 AA and best-practice rules pass, and the page does not scroll sideways. */
export async function checkPage(page: Page): Promise<void> {
  // Strings, not functions: this project compiles without the DOM's types.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<Violation[]>(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((r) => r.violations.map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`,
  );
  expect(violations).toEqual([]);
  expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
}

/**
 * Every visible a, button, input, select, summary and textarea smaller than 44 x 44 px, described. A chart's
 * bar is a link a few pixels wide on a phone and is left out when the chart's table of periods holds the same
 * link (the equivalent control, docs/design.md#a-chart-period-is-a-link): that one is measured instead.
 */
export function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const small = [];
    for (const el of document.querySelectorAll('a, button, input, select, summary, textarea')) {
      const figure = el.closest('figure.chart');
      if (figure && el.closest('svg') && [...figure.querySelectorAll('details.periods a')].some((a) => a.getAttribute('href') === el.getAttribute('href'))) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (getComputedStyle(el).visibility === 'hidden') continue;
      if (r.width < 43.99 || r.height < 43.99)
        small.push(el.tagName + ' "' + (el.textContent || el.getAttribute('name') || '').trim().slice(0, 40) + '" ' + r.width.toFixed(1) + 'x' + r.height.toFixed(1));
    }
    return small;
  })()`);
}

/** Labels of the charts outside their SVG's box (clipped). */
export function clippedLabels(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const out = [];
    for (const svg of document.querySelectorAll('figure.chart svg')) {
      const box = svg.getBoundingClientRect();
      for (const text of svg.querySelectorAll('text')) {
        const r = text.getBoundingClientRect();
        if (r.width === 0) continue;
        if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5) out.push(text.textContent);
      }
    }
    return out;
  })()`);
}

/** Queues a push notification of `type` for `studentId` on device dev-1001, as SendNotificationType does; resolves to its id. */
export function queueNotification(store: OpenedStore, studentId: string, type: string): Promise<string> {
  return store.outbox.enqueuePushNotification({
    deviceId: 'dev-1001',
    studentId,
    type,
    title: 'Absence',
    body: 'Absent today',
    data: {},
  });
}

export interface BrowsedService extends BrowsedApp {
  readonly service: OperatedService;
}

/**
 * The service on SQLite with the fixtures and an administrator `admin`
 * (PASSWORD of test/console/support.ts), `seed` run on its store, served to a
 * fresh Chromium; `close` ends both.
 */
export async function browseService(
  admin: string,
  seed: (service: OperatedService) => Promise<void>,
): Promise<BrowsedService> {
  const service = await startOperatedService(sqliteVariant());
  try {
    await addAccount(service.store, admin, 'admin');
    await seed(service);
    const browsed = await browseApp(service.app);
    return {
      base: browsed.base,
      context: browsed.context,
      service,
      async close() {
        await browsed.close();
        await service.stop();
      },
    };
  } catch (err) {
    await service.stop();
    throw err;
  }
}
