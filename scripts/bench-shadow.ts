// npm run bench:shadow: what shadow calls (SHADOW_URL, docs/migration.md#shadow)
// cost the answers, measured in one run as ratios to the same service with
// shadowing off. The service runs from dist/ on the demo data; the "legacy"
// is another instance of it, then a legacy that accepts connections and never
// answers, then an address that refuses them. Each is measured twice:
// saturated (the most calls/s 10 connections get, everything on one machine:
// the legacy's work competes for the same cores), and at a fixed rate well
// below saturation, where the latency of the answers is what to read.
//
// The legacy stands for another machine: on Linux with two cores or more
// (and `taskset`), the legacy runs on the last core and every service on the
// first (`taskset -a -p`, all their threads), so that the legacy's own work does
// not take the service's CPU; the load generator (this process) is left to
// the scheduler. BENCH_SHADOW_PIN=0 leaves them all unpinned.
// BENCH_SHADOW_VARIANTS=off,sampled (any of off, answers, sampled, hangs,
// refuses) measures some of the variants only; off is always measured.
// Beside the ratios, each saturated run's service CPU per call and the time
// its threads waited for a CPU (/proc), the legacy's CPU per call, and the
// comparisons and drops a second (/metrics): on a loaded machine the ratios
// move with the other work, and these say why (docs/benchmark.md#shadow-calls).
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  checkFigure,
  checkPositive,
  cpuMs,
  fmt,
  median,
  pidOf,
  request,
  root,
  runLoad,
  runMain,
  scaled,
  startChild,
  type BenchRequest,
  type LoadResult,
} from './bench-support';

const DURATION = scaled('BENCH_DURATION', 5, 0.1);
const CONNECTIONS = 10;
// Calls per second of the fixed-rate runs.
const RATE = scaled('BENCH_SHADOW_RATE', 500, 500);
const ROUNDS = scaled('BENCH_ROUNDS', 3, 1);
const CASES = [
  ['HTTP GET', request('PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' }, 'HTTP GET')],
  ['SOAP 1.1', request('PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' }, 'SOAP 1.1')],
] as const;

const CPUS = os.cpus().length;
const PIN = process.env.BENCH_SHADOW_PIN !== '0' && process.platform === 'linux' && CPUS >= 2 && hasTaskset();
const ONLY_VARIANTS = (process.env.BENCH_SHADOW_VARIANTS ?? '').split(',').filter(Boolean);

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Every thread of process `pid` on CPU `cpu` only. */
function pin(pid: number | undefined, cpu: number): void {
  if (!PIN || pid === undefined) return;
  execFileSync('taskset', ['-a', '-cp', String(cpu), String(pid)], { stdio: 'ignore' });
}

const load = (port: number, req: BenchRequest, rate?: number): Promise<LoadResult> =>
  runLoad(port, req, { connections: CONNECTIONS, duration: DURATION, rate });

async function shadowCounts(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^notify_shadow_comparisons_total\{[^}]*outcome="(\w+)"\} (\d+)/gm))
    counts[match[1]] = (counts[match[1]] ?? 0) + Number(match[2]);
  return counts;
}

/**
 * Time the threads of process `pid` have waited for a CPU so far, in µs
 * (the second field of /proc/PID/task/TID/schedstat); null where it cannot be read.
 */
function runQueueWaitUs(pid: number): number | null {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[1]);
      } catch {
        // A thread that ended meanwhile.
      }
    }
    return ns / 1000;
  } catch {
    return null;
  }
}

/** A saturated run's CPU per call (µs, the service's and the legacy's) and the shadow's comparisons and drops per second. */
interface Use {
  readonly serviceUs: number;
  /** µs per call the service's threads waited for a CPU that other work held. */
  readonly waitUs: number;
  readonly legacyUs: number;
  readonly comparedPerSecond: number;
  readonly droppedPerSecond: number;
}

async function usage(
  before: { service: number | null; wait: number | null; legacy: number | null; counts: Record<string, number> },
  service: { port: number; pid: number },
  legacyPid: number,
  result: LoadResult,
): Promise<Use> {
  const calls = Math.max(result.requests.total, 1);
  const seconds = DURATION;
  const counts = await shadowCounts(service.port);
  const delta = (key: string) => (counts[key] ?? 0) - (before.counts[key] ?? 0);
  const all = Object.keys(counts).reduce((n, key) => n + delta(key), 0);
  const perCall = (pid: number, at: number | null) => {
    const now = cpuMs(pid);
    return at === null || now === null ? NaN : ((now - at) * 1000) / calls;
  };
  return {
    serviceUs: perCall(service.pid, before.service),
    waitUs: ((): number => {
      const now = runQueueWaitUs(service.pid);
      return now === null || before.wait === null ? NaN : (now - before.wait) / calls;
    })(),
    legacyUs: perCall(legacyPid, before.legacy),
    comparedPerSecond: (all - delta('dropped') - delta('error')) / seconds,
    droppedPerSecond: delta('dropped') / seconds,
  };
}

async function main(): Promise<void> {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const env = (extra: Record<string, string>): Record<string, string> => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-bench-shadow-'));
    dirs.push(dataDir);
    return { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', DATABASE_URL: '', ...extra };
  };
  const hanging = net.createServer((socket) => socket.on('error', () => undefined));
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  const hangingPort = (hanging.address() as AddressInfo).port;
  const refusing = net.createServer();
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  const refusingPort = (refusing.address() as AddressInfo).port;
  await new Promise<void>((resolve) => refusing.close(() => resolve()));
  try {
    const legacy = await startChild(path.join(root, 'dist/main.js'), env({}));
    children.push(legacy.child);
    const legacyPid = pidOf(legacy.child);
    pin(legacy.child.pid, CPUS - 1);
    const variants = (
      [
        ['off', 'off', {}],
        ['answers', 'on, legacy answers', { SHADOW_URL: `http://127.0.0.1:${legacy.port}` }],
        ['sampled', 'on, 10% sampled', { SHADOW_URL: `http://127.0.0.1:${legacy.port}`, SHADOW_SAMPLE: '0.1' }],
        ['hangs', 'on, legacy hangs', { SHADOW_URL: `http://127.0.0.1:${hangingPort}`, SHADOW_TIMEOUT_MS: '1000' }],
        ['refuses', 'on, legacy refuses', { SHADOW_URL: `http://127.0.0.1:${refusingPort}` }],
      ] as const
    )
      .filter(([key]) => key === 'off' || ONLY_VARIANTS.length === 0 || ONLY_VARIANTS.includes(key))
      .map(([, name, extra]): [string, Record<string, string>] => [name, extra]);
    // Started together: their start-ups are not measured, and one after the other they take longest.
    const started = await Promise.allSettled(
      variants.map(([, extra]) => startChild(path.join(root, 'dist/main.js'), env(extra))),
    );
    for (const result of started) if (result.status === 'fulfilled') children.push(result.value.child);
    for (const result of started) if (result.status === 'fulfilled') pin(result.value.child.pid, 0);
    const services = started.map((result, i) => {
      if (result.status === 'rejected') throw result.reason;
      return { name: variants[i][0], port: result.value.port, pid: pidOf(result.value.child) };
    });
    console.log(
      `GetTokenDevice, ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds (the variants one after the other in each); fixed rate ${RATE}/s; ` +
        (PIN
          ? `the services on CPU 0, the legacy on CPU ${CPUS - 1} (taskset)`
          : 'nothing pinned (BENCH_SHADOW_PIN=0, one CPU, or no taskset)') +
        `; load average ${os
          .loadavg()
          .map((n) => n.toFixed(1))
          .join(', ')}`,
    );
    for (const [binding, req] of CASES) {
      // Warm-up, so that the first measured variant is not the one paying for it.
      for (const service of services) await load(service.port, req, RATE);
      // Each round measures every variant once; ratios are taken within a round
      // (so that a change in the machine's load between rounds cancels out), then the median.
      const rounds: Array<Array<{ saturated: LoadResult; fixed: LoadResult; use: Use }>> = [];
      for (let round = 0; round < ROUNDS; round++) {
        const results: Array<{ saturated: LoadResult; fixed: LoadResult; use: Use }> = [];
        for (const service of services) {
          const before = {
            service: cpuMs(service.pid),
            wait: runQueueWaitUs(service.pid),
            legacy: cpuMs(legacyPid),
            counts: await shadowCounts(service.port),
          };
          const saturated = await load(service.port, req);
          const use = await usage(before, service, legacyPid, saturated);
          const fixed = await load(service.port, req, RATE);
          results.push({ saturated, fixed, use });
        }
        rounds.push(results);
      }
      console.log(`\n${binding}`);
      console.log(
        '| shadowing | calls/s saturated (median) | ratio to off, per round | median | p99 at fixed rate (median) | p99 ratio (median) | shadow outcomes |',
      );
      console.log('|---|---|---|---|---|---|---|');
      for (const [i, service] of services.entries()) {
        const rates = rounds.map((r) => r[i].saturated.requests.average);
        const ratios = rounds.map((r) => r[i].saturated.requests.average / r[0].saturated.requests.average);
        const p99 = rounds.map((r) => r[i].fixed.latency.p99);
        const p99Ratios = rounds.map((r) => r[i].fixed.latency.p99 / Math.max(r[0].fixed.latency.p99, 0.01));
        const counts = await shadowCounts(service.port);
        checkPositive(`${service.name}: calls/s saturated`, median(rates));
        checkPositive(`${service.name}: ratio to off`, median(ratios));
        checkFigure(`${service.name}: p99 ratio`, median(p99Ratios));
        const outcomes = Object.entries(counts)
          .map(([k, v]) => `${k} ${fmt(v)}`)
          .join(', ');
        console.log(
          `| ${service.name} | ${fmt(median(rates))} | ${ratios.map((r) => fmt(r, 2)).join(', ')} | ${fmt(median(ratios), 2)} | ` +
            `${fmt(median(p99), 1)} ms | ${fmt(median(p99Ratios), 2)} | ${outcomes || '-'} |`,
        );
        const failed = rounds.reduce(
          (n, r) => n + r[i].saturated.errors + r[i].saturated.non2xx + r[i].fixed.errors + r[i].fixed.non2xx,
          0,
        );
        if (failed > 0) console.log(`  (${service.name}: ${failed} failed calls)`);
      }
      // What the saturated runs cost, from the processes' own CPU counters and
      // the shadow's counts: the ratios above move with the other work on the
      // machine, CPU per call much less.
      console.log(
        '\n| shadowing | service CPU µs per call, per round (median) | waited for a CPU, µs per call (median) | legacy CPU µs per call (median) | compared/s (median) | dropped/s (median) |',
      );
      console.log('|---|---|---|---|---|---|');
      for (const [i, service] of services.entries()) {
        const uses = rounds.map((r) => r[i].use);
        const cpu = uses.map((u) => u.serviceUs);
        console.log(
          `| ${service.name} | ${cpu.map((n) => fmt(n)).join(', ')} (${fmt(median(cpu))}) | ${fmt(median(uses.map((u) => u.waitUs)))} | ` +
            `${fmt(median(uses.map((u) => u.legacyUs)))} | ` +
            `${fmt(median(uses.map((u) => u.comparedPerSecond)))} | ${fmt(median(uses.map((u) => u.droppedPerSecond)))} |`,
        );
      }
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    hanging.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
