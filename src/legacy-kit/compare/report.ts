// The comparison's reports (docs/migration.md#reading-the-report): a table for
// the terminal, a JSON document for scripts, and one self-contained HTML page
// with every difference side by side.
import { html, raw, type Html, type HtmlValue } from '../../shared/markup';
import type { Outcome } from './compare-answers';
import type { Answer } from './exchange';
import type { Difference } from './ignore-rules';
import type { CompareEntry, CompareResult } from './run-compare';

const COLUMNS: readonly { readonly outcome: Outcome; readonly title: string }[] = [
  { outcome: 'same_bytes', title: 'same bytes' },
  { outcome: 'same_xml', title: 'same XML' },
  { outcome: 'explained', title: 'explained' },
  { outcome: 'noise', title: 'noise' },
  { outcome: 'differs', title: 'differs' },
  { outcome: 'error', title: 'error' },
];

/** Most unexplained differences listed under the table; the HTML and JSON reports have them all. */
const LISTED = 20;
/** Most of a body shown in the HTML report. */
const SHOWN_BYTES = 64 * 1024;

interface Row {
  readonly operation: string;
  readonly binding: string;
  readonly counts: Record<Outcome, number>;
}

function rowsOf(result: CompareResult): Row[] {
  const rows = new Map<string, Row>();
  for (const entry of result.entries) {
    const operation = entry.planned.operation ?? `${entry.planned.endpoint} (documents)`;
    const key = `${operation}\u0000${entry.planned.binding}`;
    let row = rows.get(key);
    if (row === undefined) {
      row = {
        operation,
        binding: entry.planned.binding,
        counts: { same_bytes: 0, same_xml: 0, explained: 0, noise: 0, differs: 0, error: 0 },
      };
      rows.set(key, row);
    }
    row.counts[entry.outcome]++;
  }
  return [...rows.values()];
}

function describe(difference: Difference): string {
  if (difference.target === 'status') return `status ${difference.primary} ≠ ${difference.candidate}`;
  if (difference.target === 'header')
    return `header ${difference.name}: ${difference.primary} ≠ ${difference.candidate}`;
  return `body at ${difference.path} (${difference.what})`;
}

function kindText(entry: CompareEntry): string {
  const kind = entry.comparison?.kind;
  if (kind === 'missing_data') return 'seeding: the candidate lacks data the primary has';
  if (kind === 'other_data') return 'seeding: the candidate holds other values';
  return 'wire: the candidate answers differently';
}

/** The terminal summary: the operation × binding table, the unexplained differences, the rules' uses. */
export function summaryText(result: CompareResult): string {
  const rows = rowsOf(result);
  const header = ['operation', 'binding', ...COLUMNS.map((c) => c.title)];
  const table = [
    header,
    ...rows.map((row) => [row.operation, row.binding, ...COLUMNS.map((c) => String(row.counts[c.outcome]))]),
  ];
  const totals = COLUMNS.map((c) => result.entries.filter((e) => e.outcome === c.outcome).length);
  table.push(['total', '', ...totals.map(String)]);
  const widths = header.map((_, i) => Math.max(...table.map((line) => line[i].length)));
  const lines = table.map((line) =>
    line
      .map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join('  ')
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  const out = [
    `primary ${result.servers.primary}, candidate ${result.servers.candidate}` +
      (result.servers.secondary === undefined ? '' : `, secondary ${result.servers.secondary}`),
    '',
    ...lines,
    '',
  ];
  const unexplained = result.entries.filter((e) => e.outcome === 'differs' || e.outcome === 'error');
  const seeding = unexplained.filter(
    (e) => e.comparison?.kind === 'missing_data' || e.comparison?.kind === 'other_data',
  );
  if (unexplained.length > 0) {
    out.push(
      `${unexplained.length} unexplained: ${seeding.length} seeding (data), ` +
        `${unexplained.filter((e) => e.outcome === 'differs').length - seeding.length} wire, ` +
        `${unexplained.filter((e) => e.outcome === 'error').length} errors`,
    );
    for (const entry of unexplained.slice(0, LISTED)) {
      const what =
        entry.outcome === 'error'
          ? `error: ${entry.error ?? ''}`
          : `${kindText(entry)}; ${(entry.comparison?.unexplained ?? []).map(describe).join('; ')}`;
      out.push(
        `  ${entry.planned.operation ?? entry.planned.endpoint} ${entry.planned.binding} ${entry.planned.case}: ${what}`,
      );
    }
    if (unexplained.length > LISTED)
      out.push(`  … and ${unexplained.length - LISTED} more (see the HTML or JSON report)`);
    out.push('');
  }
  // The deliberate differences carry the place of docs/design.md that explains them.
  const deliberate = result.rules.filter((rule) => rule.anchor?.startsWith('design.md#') === true);
  if (deliberate.length > 0) {
    const explained = deliberate.reduce((sum, rule) => sum + (result.ruleUses.get(rule.id) ?? 0), 0);
    out.push(
      `${explained} ${explained === 1 ? 'difference' : 'differences'} explained by this service's deliberate ` +
        'differences from ASMX (docs/asmx-differences.yaml; --no-asmx-differences counts them as differences)',
    );
    out.push('');
  }
  if (result.rules.length > 0) {
    out.push('ignore rules used:');
    for (const rule of result.rules) out.push(`  ${rule.id}: ${result.ruleUses.get(rule.id) ?? 0}`);
    out.push('');
  }
  out.push(unexplained.length === 0 ? 'Nothing unexplained differs.' : 'Differences remain (exit code 1).');
  return `${out.join('\n')}\n`;
}

/** The report for scripts: totals, rows, every request's outcome and differences (no bodies), the rules' uses. */
export function jsonReport(result: CompareResult): unknown {
  return {
    servers: result.servers,
    totals: Object.fromEntries(
      COLUMNS.map((c) => [c.outcome, result.entries.filter((e) => e.outcome === c.outcome).length]),
    ),
    unexplained: result.entries.filter((e) => e.outcome === 'differs' || e.outcome === 'error').length,
    rows: rowsOf(result),
    entries: result.entries.map((entry) => ({
      endpoint: entry.planned.endpoint,
      operation: entry.planned.operation,
      binding: entry.planned.binding,
      case: entry.planned.case,
      method: entry.planned.request.method,
      path: entry.planned.request.path,
      outcome: entry.outcome,
      kind: entry.comparison?.kind ?? null,
      differences: entry.comparison?.differences ?? [],
      unexplained: entry.comparison?.unexplained ?? [],
      noise: entry.noise,
      rulesUsed: entry.comparison?.rulesUsed ?? [],
      error: entry.error,
    })),
    rules: result.rules.map((rule) => ({ id: rule.id, reason: rule.reason, uses: result.ruleUses.get(rule.id) ?? 0 })),
  };
}

/** Items with a line break between each two. */
function lines(items: readonly HtmlValue[]): HtmlValue[] {
  return items.flatMap((item, i) => (i === 0 ? [item] : ['\n', item]));
}

/** An answer as text, the lines that differ from the other side marked. */
function answerHtml(answer: Answer | null, other: Answer | null): Html {
  if (answer === null) return html`<p>(no answer)</p>`;
  const head = [`HTTP ${answer.status}`, ...Object.entries(answer.headers).map(([n, v]) => `${n}: ${v}`)];
  const text = answer.body.subarray(0, SHOWN_BYTES).toString('utf8');
  const otherLines = other === null ? [] : other.body.subarray(0, SHOWN_BYTES).toString('utf8').split('\n');
  const body = lines(text.split('\n').map((line, i) => (line === otherLines[i] ? line : html`<mark>${line}</mark>`)));
  const cut = answer.body.length > SHOWN_BYTES ? `\n… (${answer.body.length - SHOWN_BYTES} more bytes)` : '';
  return html`<pre>${head.join('\n')}\n\n${body}${cut}</pre>`;
}

function entryHtml(entry: CompareEntry, index: number): Html {
  const { planned } = entry;
  const { request } = planned;
  const list = (entry.comparison?.unexplained ?? []).map((d) => {
    const noisy = entry.noise.includes(d) ? ' (noise: the primaries differ here too)' : '';
    return html`<li>${describe(d) + noisy}</li>`;
  });
  const outcome =
    entry.outcome === 'error' ? `error: ${entry.error ?? ''}` : entry.outcome === 'noise' ? 'noise' : kindText(entry);
  const headers = Object.entries(request.headers).map(([n, v]) => `${n}: ${v}`);
  const requestText = `${request.method} ${request.path}\n${headers.join('\n')}\n\n${request.body.slice(0, 4096)}`;
  return html`<section id="d${index}">
<h3>${`${planned.operation ?? planned.endpoint} · ${planned.binding} · ${planned.case}`}</h3>
<p>${outcome}</p>
<ul>${list}</ul>
<details><summary>request</summary><pre>${requestText}</pre></details>
<div class="pair"><div><h4>primary</h4>${answerHtml(entry.primary, entry.candidate)}</div><div><h4>candidate</h4>${answerHtml(entry.candidate, entry.primary)}</div></div>
</section>`;
}

const STYLE = raw(`body{font-family:system-ui,sans-serif;margin:1rem;color:#111}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:right}td:first-child,td:nth-child(2){text-align:left}
td.differs,td.error{background:#fdd}td.noise{background:#eef}td.explained{background:#ffe}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1rem}pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;padding:.5rem;font-size:.85rem}
mark{background:#fc6}section{border-top:2px solid #999;margin-top:1.5rem}`);

/** One page, no script and no external asset: the table, then each unexplained difference and each noise side by side. */
export function htmlReport(result: CompareResult): string {
  const { servers } = result;
  const table = html`<table><thead><tr><th>operation</th><th>binding</th>${COLUMNS.map((c) => html`<th>${c.title}</th>`)}</tr></thead><tbody>${rowsOf(
    result,
  ).map(
    (row) =>
      html`<tr><td>${row.operation}</td><td>${row.binding}</td>${COLUMNS.map(
        (c) => html`<td class="${row.counts[c.outcome] > 0 ? c.outcome : ''}">${row.counts[c.outcome]}</td>`,
      )}</tr>`,
  )}</tbody></table>`;
  const differing = result.entries.filter((e) => e.outcome === 'differs' || e.outcome === 'error');
  const noise = result.entries.filter((e) => e.outcome === 'noise');
  const rules = result.rules.map(
    (rule) => html`<tr><td>${rule.id}</td><td>${result.ruleUses.get(rule.id) ?? 0}</td><td>${rule.reason}</td></tr>`,
  );
  const secondary = servers.secondary === undefined ? '' : `, secondary ${servers.secondary}`;
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Comparison report</title>
<style>
${STYLE}
</style></head><body>
<h1>Comparison report</h1>
<p>${`primary ${servers.primary}, candidate ${servers.candidate}${secondary}`}</p>
${table}
<h2>Unexplained differences (${differing.length})</h2>
${lines(differing.map((e, i) => entryHtml(e, i)))}
<h2>Noise (${noise.length})</h2>
${lines(noise.map((e, i) => entryHtml(e, differing.length + i)))}
<h2>Ignore rules</h2>
<table><thead><tr><th>rule</th><th>uses</th><th>reason</th></tr></thead><tbody>${rules}</tbody></table>
</body></html>
`.text;
}
