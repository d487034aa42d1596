// A failure as every console page shows it (docs/console.md#explanations):
// what happened, who must act and what to do, from the one table in
// src/shared/failure-explanations.ts, then the provider's own text masked.
import { explainFailure, explainRefusal, type Explanation } from '../shared/failure-explanations';
import type { OutboxChannel } from '../store';
import { html, type Html } from '../shared/markup';
import type { View } from './view';

/** Long unbroken runs of letters and digits in an error text (tokens, ids) shown by their ends only. */
export function maskErrorText(text: string): string {
  return text.replace(/[A-Za-z0-9_:.-]{33,}/g, (run) => `${run.slice(0, 6)}…${run.slice(-4)}`);
}

/**
 * The explanation in the page's language: what happened, then who acts and
 * what to do (`all`); what and who only where rows are dense (`short`); who
 * and what to do under a heading that already says what (`todo`).
 */
export function explanationText(view: View, explanation: Explanation, parts: 'all' | 'short' | 'todo' = 'all'): Html {
  const { t } = view;
  const text = explanation[view.lang];
  const who = t.whoActs[explanation.who];
  const todo = html`<span class="who who-${explanation.who}"><strong>${who}</strong>: ${text.todo}</span>`;
  if (parts === 'todo') return todo;
  return html`<span class="explain">${text.what}</span>${
    parts === 'all' ? html`<br>${todo}` : html` <span class="who who-${explanation.who}">(${who})</span>`
  }`;
}

/**
 * A message's last error: explained (in full, or what and who only where
 * rows are dense), then the stored text masked; a dash when none.
 */
export function lastErrorText(
  view: View,
  channel: OutboxChannel,
  error: string | null,
  options: { full?: boolean; code?: string | null } = {},
): Html | string {
  const explanation = explainFailure(channel, error, options.code ?? null);
  if (explanation === null) return '–';
  return html`${explanationText(view, explanation, options.full === false ? 'short' : 'all')}${
    error === null ? '' : html`<br><bdi class="code muted">${maskErrorText(error)}</bdi>`
  }`;
}

/** Why a call was refused (its reason, `no_token`, …): explained, then the reason's code. */
export function refusalText(view: View, reason: string, full = true): Html {
  return html`${explanationText(view, explainRefusal(reason), full ? 'all' : 'short')}<br><bdi class="code muted">${reason}</bdi>`;
}
