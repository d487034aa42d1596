// The Prometheus rules (deploy/prometheus/rules) as promtool reads them:
// valid, every alert unit-tested (deploy/prometheus/tests/alerts.test.yml,
// series that fire it and series that do not), and every alert with a
// severity and a runbook that exists in docs/operating.md. That the
// expressions find the service's series is test/prometheus/'s job.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describeWithTools, findTool } from '../support/tools';

const ROOT = path.resolve(__dirname, '../..');
const PROMETHEUS_DIR = path.join(ROOT, 'deploy/prometheus');
const RULE_FILES = ['rules/recording.yml', 'rules/alerts.yml'].map((file) => path.join(PROMETHEUS_DIR, file));
const TEST_FILE = path.join(PROMETHEUS_DIR, 'tests/alerts.test.yml');
const promtool = findTool('promtool', 'PROMTOOL');

interface Rule {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}
interface RuleFile {
  readonly groups: ReadonlyArray<{ readonly name: string; readonly rules: readonly Rule[] }>;
}
interface AlertTest {
  readonly eval_time: string;
  readonly alertname: string;
  readonly exp_alerts?: readonly unknown[] | null;
}
interface TestFile {
  readonly tests: ReadonlyArray<{
    readonly name?: string;
    readonly input_series?: readonly unknown[];
    readonly alert_rule_test?: readonly AlertTest[];
  }>;
}

function rules(): Rule[] {
  return RULE_FILES.flatMap((file) => (parse(readFileSync(file, 'utf8')) as RuleFile).groups.flatMap((g) => g.rules));
}

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function run(args: string[]): { status: number | null; output: string } {
  const result = spawnSync(promtool ?? 'promtool', args, { cwd: PROMETHEUS_DIR, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describeWithTools(
  'Prometheus rules (promtool)',
  { promtool },
  'Debian: apt-get install prometheus; or set PROMTOOL',
  () => {
    it('are valid rule files', () => {
      const { status, output } = run(['check', 'rules', ...RULE_FILES]);
      expect(output).not.toMatch(/FAILED/);
      expect(status).toBe(0);
    });

    // A day and more of series at one sample a minute (the refusals' daily rate): seconds of work.
    it('pass their unit tests', () => {
      const { status, output } = run(['test', 'rules', TEST_FILE]);
      if (status !== 0) throw new Error(`promtool test rules failed:\n${output}`);
      expect(output).toMatch(/SUCCESS/);
    }, 120_000);
  },
);

describe('Prometheus alerts, as written', () => {
  const alerts = rules().filter((rule) => rule.alert !== undefined);
  const groups = (parse(readFileSync(TEST_FILE, 'utf8')) as TestFile).tests;
  const tests = groups.flatMap((g) => g.alert_rule_test ?? []);

  it('each have a case that fires them and one that does not', () => {
    const names = alerts.map((rule) => rule.alert);
    const firing = new Set(tests.filter((t) => (t.exp_alerts ?? []).length > 0).map((t) => t.alertname));
    expect(names.filter((name) => !firing.has(name as string))).toEqual([]);
    // Not firing: a time at which nothing fires, or series in a firing case beside those that fire.
    const quiet = new Set(tests.filter((t) => (t.exp_alerts ?? []).length === 0).map((t) => t.alertname));
    const withOtherSeries = new Set(
      groups
        .filter((g) => {
          const expected = (g.alert_rule_test ?? []).reduce((n, t) => Math.max(n, (t.exp_alerts ?? []).length), 0);
          return (g.input_series ?? []).length > expected;
        })
        .flatMap((g) => (g.alert_rule_test ?? []).map((t) => t.alertname)),
    );
    expect(names.filter((name) => !quiet.has(name as string) && !withOtherSeries.has(name as string))).toEqual([]);
    // And no case names an alert that does not exist.
    expect(tests.map((t) => t.alertname).filter((name) => !names.includes(name))).toEqual([]);
  });

  it('each have a severity, a summary, a description and a runbook in docs/operating.md', () => {
    const operating = readFileSync(path.join(ROOT, 'docs/operating.md'), 'utf8');
    const anchors = new Set([...operating.matchAll(/^#{1,6} (.+)$/gm)].map((m) => headingAnchor(m[1])));
    for (const rule of alerts) {
      const name = rule.alert as string;
      expect({ name, severity: rule.labels?.severity }).toEqual({
        name,
        severity: expect.stringMatching(/^(critical|warning)$/),
      });
      expect(rule.annotations?.summary).toEqual(expect.any(String));
      expect(rule.annotations?.description).toEqual(expect.any(String));
      const anchor = `alert-${name.toLowerCase()}`;
      expect({ name, runbook: rule.annotations?.runbook_url }).toEqual({
        name,
        runbook: `docs/operating.md#${anchor}`,
      });
      expect({ name, anchorFound: anchors.has(anchor) }).toEqual({ name, anchorFound: true });
    }
  });

  it('are in one contiguous Alerts chapter, one section per alert', () => {
    const operating = readFileSync(path.join(ROOT, 'docs/operating.md'), 'utf8');
    const chapter = operating.slice(operating.indexOf('\n## Alerts\n'));
    const next = chapter.slice(1).search(/\n## /);
    const sections = [...(next === -1 ? chapter : chapter.slice(0, next + 1)).matchAll(/^### Alert: (\w+)$/gm)].map(
      (m) => m[1],
    );
    expect(sections.sort()).toEqual(alerts.map((rule) => rule.alert).sort());
  });
});
