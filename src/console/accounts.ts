// The accounts page (administrators only, docs/console.md#accounts): the
// same changes as `npm run operator`, each ending the account's sessions and
// each recorded in the audit trail. An administrator cannot change their own
// account here, so that the console always keeps one administrator who can.
import bcrypt from 'bcryptjs';
import type { Request, Response } from 'express';
import { CONSOLE_ROLES, type ConsoleRole } from '../store';
import type { ConsoleContext, SignedPageHandler } from './context';
import { html } from '../shared/markup';
import { CONSOLE_BASE, redirect } from './respond';
import { csrfField, errorSummary, notice, sendView, type SignedInView } from './view';

/** As the policy's users (src/access/policy.ts USER_NAME), and safe in a path: never `.` or `..`, which a browser resolves away. */
export const ACCOUNT_NAME = /^(?!\.\.?$)[A-Za-z0-9._-]{1,64}$/;
export const PASSWORD_MIN = 12;
/** bcrypt's cost, as the policy's users (src/cli/user.ts). */
export const ACCOUNT_BCRYPT_COST = 10;

/** An account's path; the name encoded, so that no name can make the path (or a form's action) another one. */
const accountPath = (name: string) => `${CONSOLE_BASE}/accounts/${encodeURIComponent(name)}`;

const isRole = (value: unknown): value is ConsoleRole =>
  typeof value === 'string' && (CONSOLE_ROLES as readonly string[]).includes(value);

type Done = 'added' | 'updated' | 'changed' | 'removed';

export async function showAccounts(
  context: ConsoleContext,
  view: SignedInView,
  req: Request,
  res: Response,
  form: { name?: string; role?: ConsoleRole; problems?: { field: string; text: string }[] } = {},
): Promise<void> {
  const { t } = view;
  const accounts = await context.stores.console.listAccounts();
  const done = typeof req.query.done === 'string' ? (req.query.done as Done) : null;
  const doneName = typeof req.query.name === 'string' ? req.query.name.slice(0, 64) : '';
  const note =
    done === 'added'
      ? t.accountAdded(doneName)
      : done === 'updated'
        ? t.accountUpdated(doneName)
        : done === 'changed'
          ? t.accountChanged(doneName)
          : done === 'removed'
            ? t.accountRemoved(doneName)
            : null;
  const self = view.session?.account;
  const roleOptions = (selected: ConsoleRole) =>
    CONSOLE_ROLES.map(
      (role) => html`<option value="${role}"${role === selected ? html` selected` : ''}>${t.role[role]}</option>`,
    );
  const rows = accounts.map((account) => {
    const path = accountPath(account.name);
    const actions =
      account.name === self
        ? html`<span class="muted">–</span>`
        : html`<form class="inline" method="post" action="${path}/role">${csrfField(view)}<label class="visually-hidden" for="role-${account.name}">${t.changeRole}</label><select id="role-${account.name}" name="role">${roleOptions(account.role)}</select> <button type="submit" class="secondary">${t.save}</button></form>
<form class="inline" method="post" action="${path}/${account.disabled ? 'enable' : 'disable'}">${csrfField(view)}<button type="submit" class="secondary">${account.disabled ? t.enable : t.disable}</button></form>
<a class="button warning" href="${path}/remove">${t.remove}</a>`;
    return html`<tr>
<td data-label="${t.colName}"><bdi>${account.name}</bdi></td>
<td data-label="${t.colRole}">${t.role[account.role]}</td>
<td data-label="${t.colAccountState}">${account.disabled ? t.disabled : t.active}</td>
<td data-label="${t.colActions}">${actions}</td>
</tr>`;
  });
  const problems = form.problems ?? [];
  const invalid = (field: string) => (problems.some((p) => p.field === field) ? html` aria-invalid="true"` : '');
  sendView(
    res,
    view,
    t.accountsTitle,
    html`${notice(note)}${errorSummary(view, problems)}
<table class="stack">
<thead><tr><th scope="col">${t.colName}</th><th scope="col">${t.colRole}</th><th scope="col">${t.colAccountState}</th><th scope="col">${t.colActions}</th></tr></thead>
<tbody>${rows}</tbody>
</table>
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
    { status: problems.length > 0 ? 400 : 200, current: 'accounts' },
  );
}

export async function addAccount(
  context: ConsoleContext,
  view: SignedInView,
  req: Request,
  res: Response,
): Promise<void> {
  const { t } = view;
  const session = view.session;
  const body = (req.body ?? {}) as Record<string, unknown>;
  const name = typeof body.name === 'string' ? body.name.trim() : '';
  const password = typeof body.password === 'string' ? body.password : '';
  const role = isRole(body.role) ? body.role : null;
  const problems: { field: string; text: string }[] = [];
  if (!ACCOUNT_NAME.test(name)) problems.push({ field: 'account-name', text: t.nameRule });
  if (password.length < PASSWORD_MIN || password.length > 1024)
    problems.push({ field: 'account-password', text: t.passwordTooShort });
  if (role === null) problems.push({ field: 'account-role', text: t.forbiddenText });
  if (name === session.account) problems.push({ field: 'account-name', text: t.ownAccount });
  if (problems.length > 0 || role === null) {
    await showAccounts(context, view, req, res, { name: name.slice(0, 64), role: role ?? undefined, problems });
    return;
  }
  const passwordHash = await bcrypt.hash(password, ACCOUNT_BCRYPT_COST);
  const result = await context.stores.console.writeAccount({ name, passwordHash, role });
  await context.audit({
    address: req.ip ?? null,
    account: session.account,
    operation: result === 'added' ? 'account-add' : 'account-update',
    subject: name,
    outcome: 'allowed',
    reason: `role ${role}`,
  });
  redirect(res, `${CONSOLE_BASE}/accounts?done=${result}&name=${encodeURIComponent(name)}`);
}

export type AccountChange = 'role' | 'disable' | 'enable' | 'remove';

export const changeAccount: SignedPageHandler<[name: string, change: AccountChange]> = async (
  context,
  view,
  req,
  res,
  name,
  change,
) => {
  const session = view.session;
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (name === session.account || !ACCOUNT_NAME.test(name)) {
    await showAccounts(context, view, req, res, { problems: [{ field: 'account-name', text: view.t.ownAccount }] });
    return;
  }
  let found: boolean;
  let detail: string | null = null;
  if (change === 'remove') found = await context.stores.console.removeAccount(name);
  else if (change === 'role') {
    if (!isRole(body.role)) {
      await showAccounts(context, view, req, res, {
        problems: [{ field: 'account-role', text: view.t.forbiddenText }],
      });
      return;
    }
    detail = `role ${body.role}`;
    found = await context.stores.console.changeAccount(name, { role: body.role });
  } else found = await context.stores.console.changeAccount(name, { disabled: change === 'disable' });
  if (!found) {
    await showAccounts(context, view, req, res, { problems: [{ field: 'account-name', text: view.t.accountMissing }] });
    return;
  }
  await context.audit({
    address: req.ip ?? null,
    account: session.account,
    operation: `account-${change}`,
    subject: name,
    outcome: 'allowed',
    reason: detail,
  });
  redirect(
    res,
    `${CONSOLE_BASE}/accounts?done=${change === 'remove' ? 'removed' : 'changed'}&name=${encodeURIComponent(name)}`,
  );
};

/** The confirmation step before a removal: one question on its own page. */
export function confirmRemoval(view: SignedInView, res: Response, name: string): void {
  const { t } = view;
  sendView(
    res,
    view,
    t.remove,
    html`<p>${t.confirmRemove(name)}</p>
<form method="post" action="${accountPath(name)}/remove">${csrfField(view)}<button type="submit" class="warning">${t.yesRemove}</button> <a href="${CONSOLE_BASE}/accounts">${t.cancel}</a></form>`,
    { current: 'accounts' },
  );
}
