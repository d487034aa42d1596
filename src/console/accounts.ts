// The accounts page (administrators only, docs/console.md#accounts): the
// same changes as `npm run operator`, each ending the account's sessions and
// each recorded in the audit trail. An administrator cannot change their own
// account here, so that the console always keeps one administrator who can.
import bcrypt from 'bcryptjs';
import { z } from 'zod';
import { CONSOLE_ROLES, type ConsoleAccount, type ConsoleRole } from '../store';
import type { ConsoleContext } from './context';
import { html } from '../shared/markup';
import { CONSOLE_BASE } from './respond';
import { column, confirmation, invalidWhere, option, stackTable } from './partials';
import { defaultZone } from './preferences';
import { text, type Page, type Redirect, type Signed } from './route-table';
import { csrfField, errorSummary, notice, titled, type SignedInView } from './view';

/** As the policy's users (src/access/policy.ts USER_NAME), and safe in a path: never `.` or `..`, which a browser resolves away. */
export const ACCOUNT_NAME = /^(?!\.\.?$)[A-Za-z0-9._-]{1,64}$/;
export const PASSWORD_MIN = 12;
/** bcrypt's cost, as the policy's users (src/cli/user.ts). */
export const ACCOUNT_BCRYPT_COST = 10;
/** The longest password taken (bcrypt reads 72 bytes; a longer one is refused, not cut). */
const PASSWORD_MAX = 1024;

/** An account's path; the name encoded, so that no name can make the path (or a form's action) another one. */
const accountPath = (name: string) => `${CONSOLE_BASE}/accounts/${encodeURIComponent(name)}`;

const isRole = (value: unknown): value is ConsoleRole =>
  typeof value === 'string' && (CONSOLE_ROLES as readonly string[]).includes(value);

/** What the change that sent here did, and to whom (`done=added&name=…`). */
export const accountsQuery = z.object({ done: text(16), name: text(64) });

/** The form that adds an account; a value past its bound is kept long enough to be refused. */
export const accountForm = z.object({
  name: text(256).transform((value) => (value ?? '').trim()),
  password: text(PASSWORD_MAX + 1).transform((value) => value ?? ''),
  role: text(16).transform((value) => (isRole(value) ? value : null)),
});

/** A change's form: the role chosen, for `role`. */
export const changeForm = z.object({ role: text(16).transform((value) => (isRole(value) ? value : null)) });

type Problems = readonly { field: string; text: string }[];

export interface AccountsModel {
  readonly accounts: readonly ConsoleAccount[];
  /** The zone of an account that has chosen none (CONSOLE_TIME_ZONE, else UTC). */
  readonly defaultZone: string;
  readonly query: z.output<typeof accountsQuery>;
  /** The add form shown again with what was typed, and its problems. */
  readonly form: { readonly name?: string; readonly role?: ConsoleRole; readonly problems?: Problems };
}

export async function loadAccounts(
  context: ConsoleContext,
  query: z.output<typeof accountsQuery> = { done: undefined, name: undefined },
  form: AccountsModel['form'] = {},
): Promise<AccountsModel> {
  return { accounts: await context.stores.console.listAccounts(), defaultZone: defaultZone(context), query, form };
}

export function accountsPage(view: SignedInView, { accounts, defaultZone, query, form }: AccountsModel): Page {
  const { t } = view;
  const doneName = query.name ?? '';
  const notes: Readonly<Record<string, (name: string) => string>> = {
    added: t.accountAdded,
    updated: t.accountUpdated,
    changed: t.accountChanged,
    removed: t.accountRemoved,
  };
  const done = query.done !== undefined && Object.hasOwn(notes, query.done) ? notes[query.done] : undefined;
  const self = view.session.account;
  const roleOptions = (selected: ConsoleRole) => CONSOLE_ROLES.map((role) => option(role, t.role[role], selected));
  const actions = (account: ConsoleAccount) => {
    if (account.name === self) return html`<span class="muted">–</span>`;
    const path = accountPath(account.name);
    return html`<form class="inline" method="post" action="${path}/role">${csrfField(view)}<label class="visually-hidden" for="role-${account.name}">${t.changeRole}</label><select id="role-${account.name}" name="role">${roleOptions(account.role)}</select> <button type="submit" class="secondary">${t.save}</button></form>
<form class="inline" method="post" action="${path}/${account.disabled ? 'enable' : 'disable'}">${csrfField(view)}<button type="submit" class="secondary">${account.disabled ? t.enable : t.disable}</button></form>
<a class="button warning" href="${path}/remove">${t.remove}</a>`;
  };
  const problems = form.problems ?? [];
  const invalid = invalidWhere(problems);
  return {
    title: t.accountsTitle,
    main: html`${notice(done === undefined ? null : done(doneName))}${errorSummary(view, problems)}
${stackTable(accounts, [
  column(t.colName, (account) => html`<bdi>${account.name}</bdi>`),
  column(t.colRole, (account) => t.role[account.role]),
  column(t.colAccountState, (account) => (account.disabled ? t.disabled : t.active)),
  column(t.timeZoneLabel, (account) =>
    account.timeZone === null
      ? html`<span class="muted">${titled(t.consoleDefaultZone, defaultZone).heading}</span>`
      : html`<bdi>${account.timeZone}</bdi>`,
  ),
  column(t.colActions, actions),
])}
<h2>${t.addAccount}</h2>
<form class="narrow" method="post" action="${CONSOLE_BASE}/accounts" novalidate>
${csrfField(view)}
<div class="field"><label for="account-name">${t.userName}</label>
<input id="account-name" name="name" type="text" dir="ltr" autocomplete="off" maxlength="64" required value="${form.name ?? ''}"${invalid('account-name')}></div>
<div class="field"><label for="account-password">${t.password}</label><p class="hint" id="password-hint">${t.passwordRule}</p>
<input id="account-password" name="password" type="password" dir="ltr" autocomplete="new-password" aria-describedby="password-hint" required${invalid('account-password')}></div>
<div class="field"><label for="account-role">${t.colRole}</label>
<select id="account-role" name="role">${roleOptions(form.role ?? 'viewer')}</select></div>
<button type="submit">${t.add}</button>
</form>`,
    status: problems.length > 0 ? 400 : 200,
    current: 'accounts',
  };
}

export async function addAccount(
  context: ConsoleContext,
  signed: Signed,
  { name, password, role }: z.output<typeof accountForm>,
): Promise<Page | Redirect> {
  const { t } = signed.view;
  const problems: { field: string; text: string }[] = [];
  if (!ACCOUNT_NAME.test(name)) problems.push({ field: 'account-name', text: t.nameRule });
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX)
    problems.push({ field: 'account-password', text: t.passwordTooShort });
  if (role === null) problems.push({ field: 'account-role', text: t.forbiddenText });
  if (name === signed.session.account) problems.push({ field: 'account-name', text: t.ownAccount });
  if (problems.length > 0 || role === null)
    return accountsPage(
      signed.view,
      await loadAccounts(context, undefined, { name: name.slice(0, 64), role: role ?? undefined, problems }),
    );
  const passwordHash = await bcrypt.hash(password, ACCOUNT_BCRYPT_COST);
  const result = await context.stores.console.writeAccount({ name, passwordHash, role });
  await signed.audit({
    operation: result === 'added' ? 'account-add' : 'account-update',
    subject: name,
    outcome: 'allowed',
    reason: `role ${role}`,
  });
  return { redirect: `${CONSOLE_BASE}/accounts?done=${result}&name=${encodeURIComponent(name)}` };
}

export type AccountChange = 'role' | 'disable' | 'enable' | 'remove';

export async function changeAccount(
  context: ConsoleContext,
  signed: Signed,
  name: string,
  change: AccountChange,
  body: z.output<typeof changeForm>,
): Promise<Page | Redirect> {
  const { t } = signed.view;
  const refuse = async (field: string, text: string) =>
    accountsPage(signed.view, await loadAccounts(context, undefined, { problems: [{ field, text }] }));
  if (name === signed.session.account || !ACCOUNT_NAME.test(name)) return refuse('account-name', t.ownAccount);
  let found: boolean;
  let detail: string | null = null;
  if (change === 'remove') found = await context.stores.console.removeAccount(name);
  else if (change === 'role') {
    if (body.role === null) return refuse('account-role', t.forbiddenText);
    detail = `role ${body.role}`;
    found = await context.stores.console.changeAccount(name, { role: body.role });
  } else found = await context.stores.console.changeAccount(name, { disabled: change === 'disable' });
  if (!found) return refuse('account-name', t.accountMissing);
  await signed.audit({ operation: `account-${change}`, subject: name, outcome: 'allowed', reason: detail });
  return {
    redirect: `${CONSOLE_BASE}/accounts?done=${change === 'remove' ? 'removed' : 'changed'}&name=${encodeURIComponent(name)}`,
  };
}

/** The confirmation step before a removal: one question on its own page. */
export function confirmRemovalPage(view: SignedInView, name: string): Page {
  const { t } = view;
  return {
    title: t.remove,
    main: confirmation(view, {
      question: html`<p>${t.confirmRemove(name)}</p>`,
      action: `${accountPath(name)}/remove`,
      yes: t.yesRemove,
      back: `${CONSOLE_BASE}/accounts`,
      warning: true,
    }),
    current: 'accounts',
  };
}
