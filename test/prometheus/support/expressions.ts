// The PromQL of the rule files and of the dashboard, as Prometheus will be
// asked it: each dashboard query with Grafana's variables substituted, and
// the series selectors inside an expression (each metric or recorded name
// with its matchers), to ask whether the service exports what a rule reads.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface Expression {
  /** Where it comes from: `alert NotifyX`, `record notify:y`, `panel "Title" A`. */
  readonly source: string;
  readonly expr: string;
}

interface RuleFile {
  readonly groups: ReadonlyArray<{
    readonly name: string;
    readonly rules: ReadonlyArray<{ readonly alert?: string; readonly record?: string; readonly expr: string }>;
  }>;
}

export function ruleExpressions(files: readonly string[]): { alerts: Expression[]; records: Expression[] } {
  const rules = files.flatMap((file) => (parse(readFileSync(file, 'utf8')) as RuleFile).groups.flatMap((g) => g.rules));
  return {
    alerts: rules.filter((r) => r.alert !== undefined).map((r) => ({ source: `alert ${r.alert}`, expr: r.expr })),
    records: rules.filter((r) => r.record !== undefined).map((r) => ({ source: `record ${r.record}`, expr: r.expr })),
  };
}

interface Panel {
  readonly title?: string;
  readonly type?: string;
  readonly targets?: ReadonlyArray<{ readonly expr?: string; readonly refId?: string }>;
  readonly panels?: readonly Panel[];
}

interface Dashboard {
  readonly panels: readonly Panel[];
  readonly templating?: { readonly list: ReadonlyArray<{ readonly name: string; readonly allValue?: string }> };
  readonly annotations?: { readonly list: ReadonlyArray<{ readonly name: string; readonly expr?: string }> };
}

/**
 * Grafana's built-in variables as a 1 s scrape makes them, and each template
 * variable as "All" (its allValue).
 */
export function substituteVariables(expr: string, dashboard: Dashboard): string {
  let text = expr.replaceAll('$__rate_interval', '1m').replaceAll('$__interval', '15s').replaceAll('$__range', '5m');
  for (const variable of dashboard.templating?.list ?? [])
    text = text
      .replaceAll(`$${variable.name}`, variable.allValue ?? '.*')
      .replaceAll(`\${${variable.name}}`, variable.allValue ?? '.*');
  return text;
}

export function dashboardExpressions(file: string): Expression[] {
  const dashboard = JSON.parse(readFileSync(file, 'utf8')) as Dashboard;
  const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
  const queries = panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({
      source: `panel "${panel.title ?? '?'}" ${target.refId ?? '?'}`,
      expr: substituteVariables(target.expr ?? '', dashboard),
    })),
  );
  const annotations = (dashboard.annotations?.list ?? [])
    .filter((a) => a.expr !== undefined)
    .map((a) => ({ source: `annotation "${a.name}"`, expr: substituteVariables(a.expr as string, dashboard) }));
  return [...queries, ...annotations];
}

// The service's metric names and the rules' recorded names; what else looks
// like a name in PromQL (functions, `by`, label names) does not start so.
const SELECTOR = /\b((?:notify|access|process|nodejs)[a-zA-Z0-9_:]*)(\{[^}]*\})?/g;

/** The series selectors in an expression, once each, without ranges or offsets. */
export function selectorsOf(expr: string): string[] {
  return [...new Set([...expr.matchAll(SELECTOR)].map((m) => `${m[1]}${m[2] ?? ''}`))];
}
