// kill -9 under load (docs/chaos.md): the server with its in-process worker,
// on SQLite and on PostgreSQL, and on PostgreSQL a server with two worker
// processes, each killed with SIGKILL while clients queue pushes
// (SendNotificationType) and login codes (AuthCode), then started again.
// Every push answered 200 must be delivered at least once; duplicates (a send
// under way when its worker died, taken over after the lease) are counted and
// printed, not failed. A login code is sent at most once: one whose send was
// under way is recorded `uncertain` instead (docs/delivery.md#sent-once), so
// every acknowledged code is delivered or uncertain, and none twice.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../src/store';
import { startFakeProviders, type FakeProviders } from './support/fake-providers';
import { seededStore, type TempStore } from '../support/built-service';
import { REPO_ROOT, startService, type ServiceProcess } from './support/service-process';
import { startTempPostgres, type TempPostgres } from './support/temp-postgres';
import { loadDataSet, startWriteLoad } from './support/write-load';

const STUDENTS = 50;
const CLIENTS = 6;
const KILLS = Number(process.env.CHAOS_KILLS ?? 1);
/** Acknowledged calls between one start and the next kill. */
const ACKS_BEFORE_KILL = Number(process.env.CHAOS_ACKS_BEFORE_KILL ?? 200);
/** Leases end this long after a killed worker claimed its messages; the survivors take them over then. */
const LEASE_SECONDS = 5;
const DRAIN_DEADLINE_MS = 60_000;

const SERVICE_ENV = {
  LOG_LEVEL: 'info',
  AUTH_CODE_LIMIT_PER_PHONE: 'off',
  AUTH_CODE_LIMIT_PER_CALLER: 'off',
  AUTH_CODE_LIMIT_GLOBAL: 'off',
  DELIVERY_LEASE_SECONDS: String(LEASE_SECONDS),
  DELIVERY_TIMEOUT_MS: '2000',
  DELIVERY_POLL_MS: '100',
  DELIVERY_RETRY_BASE_SECONDS: '1',
  DELIVERY_RETRY_MAX_SECONDS: '2',
};

let keyDir: string;
let pg: TempPostgres | null = null;

beforeAll(() => {
  keyDir = mkdtempSync(path.join(os.tmpdir(), 'sns-chaos-key-'));
});
afterAll(async () => {
  await pg?.remove();
  rmSync(keyDir, { recursive: true, force: true });
});

async function postgres(): Promise<TempPostgres> {
  pg ??= await startTempPostgres();
  return pg;
}

/** A fresh PostgreSQL database on the throwaway cluster, seeded. */
async function seededPostgres(name: string): Promise<string> {
  const cluster = await postgres();
  const { Client } = await import('pg');
  const admin = new Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = cluster.url.replace(/\/postgres$/, `/${name}`);
  const store = await openStore({ databaseUrl: url, dataDir: os.tmpdir() });
  try {
    await store.dataSet.writeDataSet(loadDataSet(STUDENTS));
  } finally {
    await store.lifecycle.close();
  }
  return url;
}

interface WorkerChild {
  readonly child: ChildProcess;
  readonly exited: Promise<unknown>;
}

function spawnWorker(env: Record<string, string>): WorkerChild {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'worker.js')], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { child, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

interface Scenario {
  readonly name: string;
  /** The store's environment for the service and workers. */
  store(prefix: string): Promise<{ env: Record<string, string>; cleanup(): void }>;
  /** Worker processes beside the server (the server's own worker then off). */
  readonly workers: number;
}

const scenarios: Scenario[] = [
  {
    name: 'SQLite, in-process worker',
    workers: 0,
    async store() {
      const temp: TempStore = await seededStore(loadDataSet(STUDENTS), 'sns-chaos-');
      return { env: { DATA_DIR: temp.dataDir }, cleanup: () => temp.remove() };
    },
  },
  {
    name: 'PostgreSQL, in-process worker',
    workers: 0,
    async store(prefix) {
      return {
        env: { DATABASE_URL: await seededPostgres(`chaos_${prefix}`), DATA_DIR: os.tmpdir() },
        cleanup: () => undefined,
      };
    },
  },
  {
    name: 'PostgreSQL, two worker processes',
    workers: 2,
    async store(prefix) {
      return {
        env: { DATABASE_URL: await seededPostgres(`chaos_${prefix}`), DATA_DIR: os.tmpdir() },
        cleanup: () => undefined,
      };
    },
  },
];

const waitFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(scenarios.map((s, i) => ({ ...s, prefix: `k${i}_` })))('kill -9 under load: $name', (scenario) => {
  it(`every acknowledged push is delivered, and every login code once or uncertain, after ${KILLS} kills`, async () => {
    const fakes: FakeProviders = await startFakeProviders();
    const storeEnv = await scenario.store(scenario.prefix);
    const env = {
      ...SERVICE_ENV,
      ...fakes.environment(keyDir),
      ...storeEnv.env,
      WORKER: scenario.workers === 0 ? 'true' : 'false',
    };
    let service: ServiceProcess = await startService(env);
    const workers: WorkerChild[] = Array.from({ length: scenario.workers }, () => spawnWorker(env));
    const load = startWriteLoad(() => service.port, { clients: CLIENTS, students: STUDENTS, prefix: scenario.prefix });
    const downtimes: number[] = [];
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        await load.acknowledged(ACKS_BEFORE_KILL);
        const serviceKilled = service.kill();
        // With worker processes, one of them dies too, in the middle of its sends.
        if (workers.length > 0) workers[kill % workers.length].child.kill('SIGKILL');
        const killedAt = Date.now();
        await serviceKilled;
        service = await startService(env);
        if (workers.length > 0) {
          await workers[kill % workers.length].exited;
          workers[kill % workers.length] = spawnWorker(env);
        }
        downtimes.push(Date.now() - killedAt);
      }
      await load.acknowledged(ACKS_BEFORE_KILL);
    } finally {
      await load.stop();
    }

    // Delivery happens elsewhere: wait until every acknowledged message arrived (or the deadline).
    const missing = () => ({
      pushes: [...load.ackedPushes].filter((key) => !fakes.pushes.has(key)),
      sms: [...load.ackedSms].filter((key) => !fakes.sms.has(key)),
    });
    const deadline = Date.now() + DRAIN_DEADLINE_MS;
    while (Date.now() < deadline && missing().pushes.length + missing().sms.length > 0) await waitFor(200);
    // Let any second delivery of a taken-over message land before counting.
    await waitFor((LEASE_SECONDS + 1) * 1000);
    const store = await openStore({ databaseUrl: storeEnv.env.DATABASE_URL, dataDir: storeEnv.env.DATA_DIR });
    const uncertainSms = new Set(
      (await store.admin.listAuthCodeMessages({ status: 'uncertain' })).map((row) => row.phone),
    );
    await store.lifecycle.close();
    await service.stop();
    for (const worker of workers) worker.child.kill('SIGTERM');
    await Promise.all(workers.map((worker) => worker.exited));
    storeEnv.cleanup();
    await fakes.close();

    const tally = (map: Map<string, number>, acked: Set<string>) => {
      const keys = [...map.keys()];
      return {
        acked: acked.size,
        delivered: keys.length,
        duplicates: keys.filter((key) => (map.get(key) ?? 0) > 1).length,
        unacknowledgedDelivered: keys.filter((key) => !acked.has(key)).length,
      };
    };
    const push = tally(fakes.pushes, load.ackedPushes);
    const sms = tally(fakes.sms, load.ackedSms);
    const lost = { ...missing(), sms: missing().sms.filter((phone) => !uncertainSms.has(phone)) };
    process.stdout.write(
      [
        `kill9 [${scenario.name}]: ${KILLS} kills, restart in ${downtimes.map((ms) => `${ms} ms`).join(', ')}; calls: ${[...load.outcomes].map(([k, n]) => `${k}: ${n}`).join(', ')}`,
        `kill9 [${scenario.name}]: push acknowledged ${push.acked}, lost ${lost.pushes.length}, duplicates ${push.duplicates}, delivered without an acknowledgement ${push.unacknowledgedDelivered}`,
        `kill9 [${scenario.name}]: SMS acknowledged ${sms.acked}, lost ${lost.sms.length}, duplicates ${sms.duplicates}, uncertain ${uncertainSms.size}, delivered without an acknowledgement ${sms.unacknowledgedDelivered}`,
        '',
      ].join('\n'),
    );
    expect(lost).toEqual({ pushes: [], sms: [] });
    expect(sms.duplicates).toBe(0);
    expect(push.acked).toBeGreaterThan(0);
    expect(sms.acked).toBeGreaterThan(0);
  });
});
