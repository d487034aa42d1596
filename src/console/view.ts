// What every page is drawn with: the language, its messages and formats, and
// who is signed in; and the page frame (header, navigation, language link,
// sign-out form) around each page's main content.
import type { Response } from 'express';
import type { ConsoleRole } from '../store';
import { isolated } from '../shared/bidi';
import { bdi, html, type Html, type HtmlValue } from '../shared/markup';
import { formatsFor, MESSAGES, type Formats, type Lang, type Messages } from './i18n';
import { headerMenu } from './header-menu';
import { CONSOLE_BASE, sendPage } from './respond';
import { DEFAULT_TIME_ZONE, timesFor, type Times } from './times';

export interface SignedIn {
  /** SHA-256 (hex) of the cookie's value: the session row's key. */
  readonly id: string;
  readonly account: string;
  readonly role: ConsoleRole;
  readonly csrf: string;
  /** The zone the account chose (docs/console.md#times); null: the console's default. */
  readonly timeZone: string | null;
}

export interface View {
  readonly lang: Lang;
  readonly t: Messages;
  readonly f: Formats;
  /** Every time on a page, in the operator's zone (src/console/times.ts). */
  readonly times: Times;
  readonly session: SignedIn | null;
  /** The request's path and query, for the language link's way back. */
  readonly here: string;
}

/** The view of a page behind the session check: who is signed in is known (src/console/route-table.ts). */
export interface SignedInView extends View {
  readonly session: SignedIn;
}

const formats = { en: formatsFor(MESSAGES.en), ar: formatsFor(MESSAGES.ar) };

// One set of formats per language and zone in use: a few hundred zones at most.
const times = new Map<string, Times>();

function timesOf(lang: Lang, zone: string): Times {
  const key = `${lang} ${zone}`;
  let found = times.get(key);
  if (found === undefined) {
    found = timesFor(MESSAGES[lang].locale, zone);
    times.set(key, found);
  }
  return found;
}

/** `zone` must be a zone isTimeZone accepts (the setting and the preference are checked where they are read). */
export function viewFor(lang: Lang, session: SignedIn, here: string, zone?: string): SignedInView;
export function viewFor(lang: Lang, session: SignedIn | null, here: string, zone?: string): View;
export function viewFor(lang: Lang, session: SignedIn | null, here: string, zone = DEFAULT_TIME_ZONE): View {
  return { lang, t: MESSAGES[lang], f: formats[lang], times: timesOf(lang, zone), session, here };
}

const RANK: Readonly<Record<ConsoleRole, number>> = { viewer: 0, operator: 1, admin: 2 };

/** Whether `role` may do what `needed` may. */
export const allows = (role: ConsoleRole, needed: ConsoleRole): boolean => RANK[role] >= RANK[needed];

/** The hidden CSRF field every state-changing form carries. */
export const csrfField = (view: View): Html =>
  html`<input type="hidden" name="csrf" value="${view.session?.csrf ?? ''}">`;

export interface PageOptions {
  /** The navigation entry to mark as current. */
  readonly current?:
    'overview' | 'messages' | 'students' | 'schools' | 'dead' | 'audit' | 'import' | 'accounts' | 'preferences';
  /** Seconds after which the browser loads the page again (a running import job). */
  readonly refresh?: number;
}

/** Answers with a whole page (`page`), 200 unless `status` says otherwise. */
export function sendView(
  res: Response,
  view: View,
  title: string | PageTitle,
  main: HtmlValue,
  options: PageOptions & { readonly status?: number } = {},
): void {
  sendPage(res, options.status ?? 200, page(view, title, main, options));
}

/**
 * A page's title that holds free text (a name, a file name): in the
 * document's <title>, which takes no markup, the text between a first-strong
 * isolate and its pop; in the heading, in a <bdi>. Either way a Latin name
 * reads whole in an Arabic title and an Arabic name in an English one
 * (docs/console.md#text-direction).
 */
export interface PageTitle {
  readonly plain: string;
  readonly heading: Html;
}

const SLOT = '\u0000';

/** `message(text)` as a page title, `text` isolated: `message` is one of the console's messages taking one value. */
export function titled(message: (text: string) => string, text: string): PageTitle {
  const [before = '', after = ''] = message(SLOT).split(SLOT);
  return { plain: message(isolated(text)), heading: html`${before}${bdi(text)}${after}` };
}

export function page(view: View, title: string | PageTitle, main: HtmlValue, options: PageOptions = {}): Html {
  const { t, session } = view;
  const plain = typeof title === 'string' ? title : title.plain;
  const heading = typeof title === 'string' ? title : title.heading;
  const navItem = (key: NonNullable<PageOptions['current']>, href: string, label: string) =>
    html`<li><a href="${href}"${options.current === key ? html` aria-current="page"` : ''}>${label}</a></li>`;
  const nav =
    session === null
      ? ''
      : html`<nav aria-label="${t.mainNav}"><ul>
${navItem('overview', `${CONSOLE_BASE}/`, t.navOverview)}
${navItem('messages', `${CONSOLE_BASE}/messages`, t.navMessages)}
${navItem('students', `${CONSOLE_BASE}/students`, t.navStudents)}
${navItem('schools', `${CONSOLE_BASE}/schools`, t.navSchools)}
${navItem('dead', `${CONSOLE_BASE}/dead`, t.navDead)}
${navItem('audit', `${CONSOLE_BASE}/audit`, t.navAudit)}
${allows(session.role, 'operator') ? navItem('import', `${CONSOLE_BASE}/import`, t.navImport) : ''}
${session.role === 'admin' ? navItem('accounts', `${CONSOLE_BASE}/accounts`, t.navAccounts) : ''}
</ul></nav>`;
  const who =
    session === null
      ? ''
      : html`<form class="sign-out" method="post" action="${CONSOLE_BASE}/sign-out">${csrfField(view)}<span>${t.signedInAs} <bdi>${session.account}</bdi> (${t.role[session.role]})</span> <a href="${CONSOLE_BASE}/preferences"${options.current === 'preferences' ? html` aria-current="page"` : ''}>${t.navPreferences}</a> <button type="submit" class="link">${t.signOut}</button></form>`;
  const langHref = `${CONSOLE_BASE}/lang/${t.otherLang}?back=${encodeURIComponent(view.here)}`;
  return html`<html lang="${view.lang}" dir="${t.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${options.refresh === undefined ? '' : html`<meta http-equiv="refresh" content="${options.refresh}">`}
<title>${plain} – ${t.consoleName}</title>
<link rel="stylesheet" href="${CONSOLE_BASE}/console.css">
</head>
<body>
<a class="skip" href="#main">${t.skip}</a>
<header class="top">
<div class="brand"><a href="${CONSOLE_BASE}/">${t.appName}</a> <span>${t.consoleName}</span></div>
${headerMenu(view, nav, html`<div class="tools">${who}<a class="lang" href="${langHref}" lang="${t.otherLang}" hreflang="${t.otherLang}">${t.otherLangName}</a></div>`)}
</header>
<main id="main">
<h1>${heading}</h1>
${main}
</main>
</body>
</html>`;
}

/** A GOV.UK-style error summary: what went wrong, at the top of the form. */
export function errorSummary(view: View, problems: readonly { field?: string; text: string }[]): Html | '' {
  if (problems.length === 0) return '';
  return html`<div class="error-summary" role="alert" aria-labelledby="problem-title">
<h2 id="problem-title">${view.t.problem}</h2>
<ul>${problems.map((p) => html`<li>${p.field === undefined ? p.text : html`<a href="#${p.field}">${p.text}</a>`}</li>`)}</ul>
</div>`;
}

/** A short note after a change (the flash message of the next page), in the page's colours for success. */
export function notice(text: string | null): Html | '' {
  return text === null ? '' : html`<div class="notice" role="status"><p>${text}</p></div>`;
}
