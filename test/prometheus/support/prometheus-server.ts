// A Prometheus server of the test's own (the prometheus binary, on a free
// loopback port, its data in a temporary folder) scraping the service every
// second and evaluating the rule files every second, and its HTTP API.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const START_TIMEOUT_MS = 30_000;
const KEPT_LOG_LINES = 100;

export interface Sample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: readonly [number, string];
}

export interface RuleState {
  readonly name: string;
  readonly query: string;
  readonly health: string;
  readonly lastError?: string;
  readonly type: 'alerting' | 'recording';
  readonly state?: string;
}

export interface RuleGroupState {
  readonly name: string;
  readonly file: string;
  readonly rules: readonly RuleState[];
  readonly lastEvaluation: string;
}

export interface PrometheusServer {
  readonly url: string;
  /** The query's result as of now; throws with Prometheus's error when it does not parse or fails. */
  query(expr: string): Promise<Sample[]>;
  groups(): Promise<RuleGroupState[]>;
  log(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPrometheus(options: {
  readonly binary: string;
  readonly target: string;
  readonly job: string;
  readonly ruleFiles: readonly string[];
}): Promise<PrometheusServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-prometheus-'));
  const config = path.join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      '  evaluation_interval: 1s',
      'rule_files:',
      ...options.ruleFiles.map((file) => `  - ${JSON.stringify(file)}`),
      'scrape_configs:',
      `  - job_name: ${JSON.stringify(options.job)}`,
      '    static_configs:',
      `      - targets: [${JSON.stringify(options.target)}]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    options.binary,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  const keep = (line: string) => {
    lines.push(line);
    if (lines.length > KEPT_LOG_LINES) lines.shift();
  };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', keep);
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (!exited) child.kill('SIGTERM');
    await exit;
    rmSync(dir, { recursive: true, force: true });
  };

  const api = async <T>(apiPath: string): Promise<T> => {
    const response = await fetch(`${url}${apiPath}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`${apiPath}: ${body.error ?? response.status}`);
    return body.data;
  };

  const started = Date.now();
  for (;;) {
    if (exited) throw new Error(`prometheus exited at start:\n${lines.join('\n')}`);
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > START_TIMEOUT_MS) {
      await stop();
      throw new Error(`prometheus not ready within ${START_TIMEOUT_MS / 1000} s:\n${lines.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  return {
    url,
    async query(expr) {
      const data = await api<{ resultType: string; result: Sample[] | [number, string] }>(
        `/api/v1/query?query=${encodeURIComponent(expr)}`,
      );
      if (data.resultType === 'scalar') return [{ metric: {}, value: data.result as [number, string] }];
      return data.result as Sample[];
    },
    async groups() {
      return (await api<{ groups: RuleGroupState[] }>('/api/v1/rules')).groups;
    },
    log: () => lines.join('\n'),
    stop,
  };
}
