// The alert and recording rules (deploy/prometheus/rules) and the Grafana
// dashboard (deploy/grafana/dashboards) against a real Prometheus scraping
// the built service under a short mixed load (support/mixed-load.ts): every
// rule group evaluates without error, every recording rule and every
// dashboard query returns series, and every alert expression parses and each
// series it reads exists. An expression that is rightly empty under this
// load is named below with the reason; any other empty one fails.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES } from '../support/fixtures';
import { seededStore, type TempStore } from '../support/built-service';
import { describeWithTools, findTool } from '../support/tools';
import { startService, type ServiceProcess } from '../chaos/support/service-process';
import { dashboardExpressions, ruleExpressions, selectorsOf, type Expression } from './support/expressions';
import { driveMixedLoad, startFakeWebhook, writeAccessPolicy, type FakeWebhook } from './support/mixed-load';
import { startPrometheus, type PrometheusServer } from './support/prometheus-server';

const ROOT = path.resolve(__dirname, '../..');
const RULE_FILES = ['recording.yml', 'alerts.yml'].map((file) => path.join(ROOT, 'deploy/prometheus/rules', file));
const DASHBOARD = path.join(ROOT, 'deploy/grafana/dashboards/student-notification-service.json');
const JOB = 'student-notification-service';
const prometheusBinary = findTool('prometheus', 'PROMETHEUS');
// AUTH_CODE_LIMIT_GLOBAL for the run, and as many codes: the limit is spent whole.
const GLOBAL_CODES = 5;
const WAIT_MS = 60_000;
const ADMIN_TOKEN = 'a-prometheus-check-admin-token-0123456789';
// Nothing listens here: every school's event receiver is down for the whole run.
const DEAD_RECEIVER = 'http://127.0.0.1:9/events';

/** Selectors (as selectorsOf writes them) that are rightly empty under this load, and why. */
const EMPTY_SELECTORS: Readonly<Record<string, string>> = {
  'notify_faults_total{code="store_unavailable"}': 'the store answers throughout the run',
};
/** Whole queries (recording rules, dashboard) that are rightly empty, and why. */
const EMPTY_QUERIES: Readonly<Record<string, string>> = {};

async function until<T>(what: string, probe: () => Promise<T | null>, explain: () => string): Promise<T> {
  const started = Date.now();
  for (;;) {
    const found = await probe();
    if (found !== null) return found;
    if (Date.now() - started > WAIT_MS) throw new Error(`${what} not seen within ${WAIT_MS / 1000} s\n${explain()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describeWithTools(
  'the rules and the dashboard, against a real Prometheus',
  { prometheus: prometheusBinary },
  "Debian: apt-get install prometheus; or set PROMETHEUS to the server's binary",
  () => {
    let store: TempStore;
    let policyDir: string;
    let webhook: FakeWebhook;
    let service: ServiceProcess;
    let prometheus: PrometheusServer;
    const { alerts, records } = ruleExpressions(RULE_FILES);
    const panels = dashboardExpressions(DASHBOARD);
    const checked = { 'recording rules': 0, 'dashboard queries': 0, 'alert expressions': 0, 'alert selectors': 0 };

    beforeAll(async () => {
      store = await seededStore(FIXTURES, 'sns-prometheus-store-');
      policyDir = mkdtempSync(path.join(os.tmpdir(), 'sns-prometheus-policy-'));
      webhook = await startFakeWebhook();
      service = await startService({
        DATA_DIR: store.dataDir,
        WORKER: 'true',
        PUSH_PROVIDER: 'webhook',
        PUSH_WEBHOOK_URL: webhook.url,
        ACCESS_POLICY: writeAccessPolicy(policyDir),
        AUTH_CODE_LIMIT_GLOBAL: `${GLOBAL_CODES}/1h`,
        DELIVERY_RETRY_BASE_SECONDS: '1',
        DELIVERY_POLL_MS: '200',
        ADMIN_TOKEN,
        EVENTS_ALLOW_HTTP: 'true',
        EVENTS_ALLOW_PRIVATE: 'true',
        EVENTS_FAILING_AFTER_MS: '1000',
      });
      prometheus = await startPrometheus({
        binary: prometheusBinary as string,
        target: `127.0.0.1:${service.port}`,
        job: JOB,
        ruleFiles: RULE_FILES,
      });
      const explain = () => `prometheus:\n${prometheus.log()}\nservice:\n${service.log()}`;
      // Scraped once before the load, so that the counters' first samples are there to rate from.
      await until(
        'a first scrape',
        async () => ((await prometheus.query(`up{job="${JOB}"} == 1`)).length > 0 ? true : null),
        explain,
      );

      // Every school subscribes to delivery events at a receiver that never answers, so that the
      // subscriptions turn failing under the load (NotifyEventSubscriptionsFailing).
      for (const school of FIXTURES.schools ?? []) {
        const response = await fetch(
          `http://127.0.0.1:${service.port}/admin/api/v1/schools/${encodeURIComponent(school.baseUrl)}/events`,
          {
            method: 'PUT',
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ url: DEAD_RECEIVER }),
          },
        );
        if (response.status !== 200) throw new Error(`subscription: ${response.status} ${await response.text()}`);
      }
      const load = await driveMixedLoad(`http://127.0.0.1:${service.port}`, GLOBAL_CODES);
      console.log(`load: ${load.calls} calls, by status ${JSON.stringify(load.statuses)}`);
      // Delivered, retried and given up, and the worker's counts of each scraped.
      await until(
        'pushes sent, retried and dead, scraped',
        async () =>
          (await prometheus.query('count(sum by (outcome) (notify_deliveries_total{outcome=~"sent|retry|dead"}))'))[0]
            ?.value[1] === '3'
            ? true
            : null,
        () => `webhook answered ${JSON.stringify([...webhook.answered])}\n${explain()}`,
      );
      // Two more scrapes and an evaluation of every group after them.
      const scrapedAt = Date.now() / 1000 + 2;
      await until(
        'two more scrapes and a rule evaluation after them',
        async () => {
          const last = await prometheus.query(`timestamp(up{job="${JOB}"})`);
          if (last.length === 0 || Number(last[0].value[1]) < scrapedAt) return null;
          const groups = await prometheus.groups();
          return groups.length > 0 && groups.every((g) => Date.parse(g.lastEvaluation) / 1000 > scrapedAt)
            ? true
            : null;
        },
        explain,
      );
    });

    afterAll(async () => {
      const total = Object.values(checked).reduce((a, b) => a + b, 0);
      console.log(`expressions checked against Prometheus: ${total} ${JSON.stringify(checked)}`);
      await prometheus?.stop();
      await service?.stop();
      await webhook?.close();
      store?.remove();
      if (policyDir !== undefined) rmSync(policyDir, { recursive: true, force: true });
    });

    it('evaluates every rule group without an error', async () => {
      const groups = await prometheus.groups();
      expect(groups.map((g) => g.name).sort()).toEqual([
        'student-notification-service.access',
        'student-notification-service.delivery',
        'student-notification-service.recording',
        'student-notification-service.service',
      ]);
      const unhealthy = groups.flatMap((g) =>
        g.rules.filter((r) => r.health !== 'ok').map((r) => `${g.name}/${r.name}: ${r.health} ${r.lastError ?? ''}`),
      );
      expect(unhealthy).toEqual([]);
      expect(groups.flatMap((g) => g.rules).length).toBe(alerts.length + records.length);
    });

    const nonEmpty = async (expressions: readonly Expression[], kind: keyof typeof checked) => {
      const empty: string[] = [];
      for (const { source, expr } of expressions) {
        const result = await prometheus.query(expr);
        checked[kind] += 1;
        if (result.length === 0 && EMPTY_QUERIES[source] === undefined) empty.push(`${source}: ${expr}`);
      }
      return empty;
    };

    it('finds series for every recording rule', async () => {
      expect(
        await nonEmpty(
          records.map((r) => ({ source: r.source, expr: r.source.replace(/^record /, '') })),
          'recording rules',
        ),
      ).toEqual([]);
    });

    it('finds series for every dashboard query', async () => {
      expect(panels.length).toBeGreaterThan(20);
      expect(await nonEmpty(panels, 'dashboard queries')).toEqual([]);
    });

    it('parses every alert expression and finds every series it reads', async () => {
      const empty: string[] = [];
      for (const { source, expr } of alerts) {
        await prometheus.query(expr); // throws with Prometheus's message when it does not parse
        checked['alert expressions'] += 1;
        for (const selector of selectorsOf(expr)) {
          const found = await prometheus.query(`count(${selector})`);
          checked['alert selectors'] += 1;
          if (found.length === 0 && EMPTY_SELECTORS[selector] === undefined) empty.push(`${source}: ${selector}`);
        }
      }
      expect(empty).toEqual([]);
    });

    it('fires the alerts this load should fire: the enumeration refusal, the AuthCode global limit spent', async () => {
      const firing = await prometheus.query('ALERTS{alertstate="firing"}');
      expect(firing.map((s) => s.metric.alertname).sort()).toEqual(
        expect.arrayContaining(['NotifyAuthCodeGlobalLimitNearlyReached', 'NotifyEnumerationRefused']),
      );
    });

    it('sees the subscriptions of a receiver that never answers turn failing, and NotifyEventSubscriptionsFailing pending', async () => {
      // The first answer of `query` with a series, waited for.
      const seen = (what: string, query: string, explain: () => string) =>
        until(
          what,
          async () => {
            const found = await prometheus.query(query);
            return found.length > 0 ? found : null;
          },
          explain,
        );
      const failing = await seen(
        'a failing event subscription, scraped',
        'max by (state) (notify_event_subscriptions{state="failing"}) > 0',
        () => service.log(),
      );
      expect(Number(failing[0]?.value[1])).toBeGreaterThan(0);
      // Its `for` (15 minutes) is far longer than the run: pending is as far as it gets here.
      const alert = await seen(
        'NotifyEventSubscriptionsFailing pending',
        'ALERTS{alertname="NotifyEventSubscriptionsFailing"}',
        () => prometheus.log(),
      );
      expect(alert.map((s) => [s.metric.state, s.metric.alertstate])).toEqual([['failing', 'pending']]);
    });

    it('names only empty selectors that are still in the rules', () => {
      const all = new Set(alerts.flatMap((a) => selectorsOf(a.expr)));
      expect(Object.keys(EMPTY_SELECTORS).filter((s) => !all.has(s))).toEqual([]);
    });
  },
);
