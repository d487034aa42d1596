// The Grafana dashboard (deploy/grafana/dashboards) as Grafana will load it:
// every query on the provisioned datasource (uid `prometheus`), panels laid
// out without overlap, and the figures an operator needs each on a panel.
// That each query finds series is test/prometheus/'s job.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const FILE = path.resolve(__dirname, '../../deploy/grafana/dashboards/student-notification-service.json');

interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly datasource?: { readonly type: string; readonly uid: string };
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly targets?: ReadonlyArray<{ readonly expr: string; readonly refId: string }>;
}

const dashboard = JSON.parse(readFileSync(FILE, 'utf8')) as { uid: string; panels: Panel[] };
const panels = dashboard.panels.filter((panel) => panel.type !== 'row');

describe('the Grafana dashboard', () => {
  it('queries the provisioned Prometheus datasource in every panel', () => {
    for (const panel of panels) {
      expect({ panel: panel.title, datasource: panel.datasource }).toEqual({
        panel: panel.title,
        datasource: { type: 'prometheus', uid: 'prometheus' },
      });
      expect(panel.targets?.length ?? 0).toBeGreaterThan(0);
    }
  });

  it('has unique panel ids and panels that do not overlap on its 24 columns', () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    const cells = new Set<string>();
    for (const { gridPos: g, title } of dashboard.panels) {
      expect({ title, inside: g.x >= 0 && g.x + g.w <= 24 }).toEqual({ title, inside: true });
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          expect({ title, overlaps: cells.has(`${x},${y}`) }).toEqual({ title, overlaps: false });
          cells.add(`${x},${y}`);
        }
    }
  });

  it('shows calls, faults, latency, the outbox, sends, refusals, memory and event-loop lag', () => {
    const queries = panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)).join('\n');
    for (const metric of [
      'notify_requests_total',
      'notify_faults_total',
      'notify_request_duration_seconds_bucket',
      'notify_outbox_pending',
      'notify_outbox_oldest_due_age_seconds',
      'notify_deliveries_total',
      'notify_delivery_errors_total',
      'access_refusals_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ])
      expect({ metric, shown: queries.includes(metric) }).toEqual({ metric, shown: true });
  });
});
