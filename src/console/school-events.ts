// A school's delivery-event subscription on its page (docs/console.md#delivery-events):
// everyone sees the receiver, its state, the waiting and retrying events and
// the last error, never the secret; operators set, change and remove it
// through the admin role's functions, the admin API's PUT, GET and DELETE
// (src/admin/event-routes.ts), with the same URL rule
// (src/shared/event-receiver-url.ts). A secret made here is shown once, on
// the page that answers the save, and never again.
import { z } from 'zod';
import type { AdminStore, EventSubscriptionView } from '../store';
import { html, type Html } from '../shared/markup';
import { checkReceiverUrl, MAX_RECEIVER_URL } from '../shared/event-receiver-url';
import { isEventSecret, newEventSecret } from '../shared/event-signature';
import type { ConsoleContext } from './context';
import { CONSOLE_BASE, sendPage } from './respond';
import { text, type Answer, type Page, type Redirect, type Signed } from './route-table';
import { maskErrorText } from './explain';
import { confirmation, summaryList } from './partials';
import { allows, csrfField, errorSummary, notice, page, type SignedInView, type View } from './view';

const MAX_SECRET = 128;

const schoolQuery = (baseUrl: string) => `school=${encodeURIComponent(baseUrl)}`;
const schoolPage = (baseUrl: string) => `${CONSOLE_BASE}/schools/students?${schoolQuery(baseUrl)}`;
const formPath = (baseUrl: string) => `${CONSOLE_BASE}/schools/events?${schoolQuery(baseUrl)}`;
const removePath = (baseUrl: string) => `${CONSOLE_BASE}/schools/events/remove?${schoolQuery(baseUrl)}`;

/** The notice of the school page after a change here (`?events=saved` or `removed`). */
export function eventsNotice(view: View, done: string | undefined): Html | '' {
  return notice(done === 'saved' ? view.t.schoolEvents.saved : done === 'removed' ? view.t.schoolEvents.removed : null);
}

/** What the school page's section shows: the subscription, or none. */
export type EventsFound = Awaited<ReturnType<AdminStore['getEventSubscription']>>;

/** The school page's section: the subscription, or that there is none; the links to change it for operators. */
export function eventsSection(view: SignedInView, baseUrl: string, found: EventsFound): Html {
  const { t, f } = view;
  const e = t.schoolEvents;
  const canEdit = allows(view.session.role, 'operator');
  if (found === 'no_school' || found === 'none')
    return html`<section aria-labelledby="events-title"><h2 id="events-title">${e.title}</h2>
<p>${e.none}</p>
${canEdit ? html`<p><a class="button secondary" href="${formPath(baseUrl)}">${e.setUp}</a></p>` : ''}</section>`;
  const stateClass = found.state === 'active' ? 'ok' : 'alert';
  return html`<section aria-labelledby="events-title"><h2 id="events-title">${e.title}</h2>
<p class="hint">${e.intro}</p>
${summaryList(
  [
    [e.url, html`<bdi class="code">${found.url}</bdi>`],
    [
      e.state,
      html`<span class="${stateClass}" id="events-state">${e.states[found.state]}</span><br><span class="muted">${e.stateHint[found.state]}</span>`,
    ],
    found.failingSince !== null && [e.failingSince, view.times.at(found.failingSince)],
    [e.pending, f.number(found.pending)],
    [e.failed, f.number(found.failed)],
    [
      e.lastError,
      found.lastError === null ? '–' : html`<bdi class="code muted">${maskErrorText(found.lastError)}</bdi>`,
    ],
  ],
  'event-subscription',
)}
${
  canEdit
    ? html`<p><a class="button secondary" href="${formPath(baseUrl)}">${e.change}</a> <a class="button warning" href="${removePath(baseUrl)}">${e.remove}</a></p>`
    : ''
}</section>`;
}

interface FormState {
  readonly url: string;
  readonly newSecret: boolean;
  readonly problems: readonly { field: string; text: string }[];
}

function eventsForm(
  view: SignedInView,
  school: { baseUrl: string; name: string },
  current: EventSubscriptionView | null,
  state: FormState,
): Html {
  const { t } = view;
  const e = t.schoolEvents;
  const invalid = (id: string) => (state.problems.some((p) => p.field === id) ? html` aria-invalid="true"` : '');
  return page(
    view,
    e.formTitle(school.name),
    html`${errorSummary(view, state.problems)}
<p><a href="${schoolPage(school.baseUrl)}">${t.back}</a></p>
<form class="narrow" method="post" action="${formPath(school.baseUrl)}" novalidate>
${csrfField(view)}
<div class="field"><label for="events-url">${e.url}</label><p class="hint" id="events-url-hint">${e.urlHint}</p>
<input id="events-url" name="url" type="text" dir="ltr" inputmode="url" maxlength="${MAX_RECEIVER_URL}" autocomplete="off" aria-describedby="events-url-hint" value="${state.url}"${invalid('events-url')}></div>
<div class="field"><label for="events-secret">${e.secret}</label><p class="hint" id="events-secret-hint">${e.secretHint}</p>
<input id="events-secret" name="secret" type="text" dir="ltr" maxlength="${MAX_SECRET}" autocomplete="off" aria-describedby="events-secret-hint" value=""${invalid('events-secret')}></div>
${
  current === null
    ? ''
    : html`<div class="field"><input id="events-new-secret" name="newSecret" type="checkbox" value="1"${state.newSecret ? html` checked` : ''}> <label for="events-new-secret" class="inline">${e.newSecret}</label></div>`
}
<button type="submit">${t.save}</button>
</form>`,
    { current: 'schools' },
  );
}

/** The school whose subscription a request is about (`?school=`), bounded as the school page bounds it. */
export const eventsQuery = z.object({ school: text(512).transform((value) => value ?? '') });

/** The subscription's form; a value past its bound is kept long enough to be refused. */
export const eventsBody = z.object({
  url: text(MAX_RECEIVER_URL + 1).transform((value) => value ?? ''),
  secret: text(MAX_SECRET + 1).transform((value) => (value ?? '').trim()),
  newSecret: text(1).transform((value) => value === '1'),
});

/** A change of a school's subscription in the audit trail (docs/console.md#audit), never its secret. */
const auditChange = (signed: Signed, baseUrl: string, outcome: 'allowed' | 'refused', reason: string) =>
  signed.audit({ subjectKind: 'school', subject: baseUrl, outcome, reason });

const noSchool = (view: SignedInView): Page => ({
  title: view.t.notFoundTitle,
  main: html`<p>${view.t.schoolMissing}</p>`,
  current: 'schools',
  status: 404,
});

async function schoolOf(context: ConsoleContext, baseUrl: string) {
  return baseUrl === '' ? null : await context.stores.admin.getRecord('schools', baseUrl);
}

async function currentOf(context: ConsoleContext, baseUrl: string): Promise<EventSubscriptionView | null> {
  const found = await context.stores.admin.getEventSubscription(baseUrl);
  return found === 'none' || found === 'no_school' ? null : found;
}

export async function showEventsForm(context: ConsoleContext, signed: Signed, baseUrl: string): Promise<Answer> {
  const { view, res } = signed;
  const school = await schoolOf(context, baseUrl);
  if (school === null) return noSchool(view);
  const current = await currentOf(context, school.baseUrl);
  sendPage(res, 200, eventsForm(view, school, current, { url: current?.url ?? '', newSecret: false, problems: [] }));
  return undefined;
}

export async function saveEvents(
  context: ConsoleContext,
  signed: Signed,
  baseUrl: string,
  { url: urlText, secret: secretText, newSecret }: z.output<typeof eventsBody>,
): Promise<Answer> {
  const { view, res } = signed;
  const e = view.t.schoolEvents;
  const school = await schoolOf(context, baseUrl);
  if (school === null) return noSchool(view);
  const current = await currentOf(context, school.baseUrl);
  const audit = (outcome: 'allowed' | 'refused', reason: string) =>
    auditChange(signed, school.baseUrl, outcome, reason);

  const problems: { field: string; text: string }[] = [];
  const checked = checkReceiverUrl(urlText, context.settings.eventsAllowHttp === true);
  if ('refusal' in checked) problems.push({ field: 'events-url', text: e.urlProblem[checked.refusal] });
  if (secretText !== '' && !isEventSecret(secretText)) problems.push({ field: 'events-secret', text: e.secretProblem });
  if ('refusal' in checked || problems.length > 0) {
    await audit('refused', 'invalid');
    // The typed secret is never sent back: the field is empty again.
    sendPage(res, 400, eventsForm(view, school, current, { url: urlText, newSecret, problems }));
    return undefined;
  }

  // Kept when the school has a subscription and no new one is asked for; else given or made here.
  const keep = secretText === '' && !newSecret && current !== null;
  const made = secretText === '' ? newEventSecret() : null;
  const stored = await context.stores.admin.putEventSubscription(school.baseUrl, {
    url: checked.url,
    secret: secretText === '' ? (made as string) : secretText,
    keepStoredSecret: keep,
  });
  // Removed since the form was read.
  if (stored === null) return noSchool(view);
  const how = keep ? 'secret-kept' : made === null ? 'secret-given' : 'secret-made';
  await audit('allowed', `${current === null ? 'created' : 'changed'} ${how}`);
  context.logger.info(
    { school: school.baseUrl, receiver: new URL(checked.url).origin, secret: how },
    'console: event subscription set',
  );
  if (keep || made === null) return { redirect: `${schoolPage(school.baseUrl)}&events=saved` };
  // The one page that shows the made secret (answered with no-store, as every console page).
  return {
    title: e.secretTitle,
    main: html`${notice(e.saved)}
<p>${e.secretText}</p>
${summaryList([
  [e.url, html`<bdi class="code">${stored.url}</bdi>`],
  [e.secretLabel, html`<bdi class="code token" id="events-made-secret">${made}</bdi>`],
])}
<p><a class="button" href="${schoolPage(school.baseUrl)}">${e.done}</a></p>`,
    current: 'schools',
  };
}

export async function confirmRemoveEvents(context: ConsoleContext, view: SignedInView, baseUrl: string): Promise<Page> {
  const { t } = view;
  const school = await schoolOf(context, baseUrl);
  if (school === null) return noSchool(view);
  return {
    title: t.schoolEvents.remove,
    main: confirmation(view, {
      question: html`<p>${t.schoolEvents.confirmRemove(school.name)}</p>`,
      action: removePath(school.baseUrl),
      yes: t.schoolEvents.yesRemove,
      back: schoolPage(school.baseUrl),
      warning: true,
    }),
    current: 'schools',
  };
}

export async function removeEvents(context: ConsoleContext, signed: Signed, baseUrl: string): Promise<Page | Redirect> {
  const school = await schoolOf(context, baseUrl);
  if (school === null) return noSchool(signed.view);
  const removed = await context.stores.admin.deleteEventSubscription(school.baseUrl);
  await auditChange(signed, school.baseUrl, removed ? 'allowed' : 'refused', removed ? 'removed' : 'none');
  if (removed) context.logger.info({ school: school.baseUrl }, 'console: event subscription removed');
  return { redirect: `${schoolPage(school.baseUrl)}${removed ? '&events=removed' : ''}` };
}
