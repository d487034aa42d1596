// Login codes through kill -9 of the delivery worker (docs/chaos.md): the
// server (WORKER=false) on SQLite and one `node dist/cli/worker.js` beside it,
// sending to a fake SMS gateway without an idempotency key, while clients
// queue pushes and login codes. The worker is killed with SIGKILL in the
// middle of its sends CHAOS_SMS_KILLS times (each time the gateway has taken
// some more codes) and started again at once. Counted at the gateway: no code
// may arrive twice (docs/delivery.md#sent-once), and every acknowledged code
// is either sent once or recorded `uncertain`, never lost in between.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../src/store';
import { seededStore, type TempStore } from '../support/built-service';
import { startFakeProviders, type FakeProviders } from './support/fake-providers';
import { REPO_ROOT, startService, type ServiceProcess } from './support/service-process';
import { loadDataSet, startWriteLoad } from './support/write-load';

const KILLS = Number(process.env.CHAOS_SMS_KILLS ?? 10);
/** Codes the gateway takes from one worker before it is killed. */
const CODES_PER_KILL = Number(process.env.CHAOS_SMS_CODES_PER_KILL ?? 60);
const STUDENTS = 50;
const LEASE_SECONDS = 5;
const DRAIN_DEADLINE_MS = 60_000;

let temp: TempStore;
let fakes: FakeProviders;
let keyDir: string;
let service: ServiceProcess;
let env: Record<string, string>;

beforeAll(async () => {
  temp = await seededStore(loadDataSet(STUDENTS), 'sns-chaos-sms-');
  fakes = await startFakeProviders();
  keyDir = mkdtempSync(path.join(os.tmpdir(), 'sns-chaos-key-'));
  env = {
    DATA_DIR: temp.dataDir,
    ...fakes.environment(keyDir),
    WORKER: 'false',
    AUTH_CODE_LIMIT_PER_PHONE: 'off',
    AUTH_CODE_LIMIT_PER_CALLER: 'off',
    AUTH_CODE_LIMIT_GLOBAL: 'off',
    DELIVERY_LEASE_SECONDS: String(LEASE_SECONDS),
    DELIVERY_TIMEOUT_MS: '2000',
    DELIVERY_POLL_MS: '50',
    DELIVERY_RETRY_BASE_SECONDS: '1',
    DELIVERY_RETRY_MAX_SECONDS: '2',
  };
  service = await startService(env);
});
afterAll(async () => {
  await service?.stop();
  await fakes?.close();
  temp?.remove();
  rmSync(keyDir, { recursive: true, force: true });
});

interface WorkerChild {
  readonly child: ChildProcess;
  readonly exited: Promise<unknown>;
}

function spawnWorker(): WorkerChild {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'worker.js')], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { child, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

const waitFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const codesAtGateway = () => [...fakes.sms.values()].reduce((sum, n) => sum + n, 0);

it(`no login code is sent twice through ${KILLS} kills of the worker mid-send; each is sent once or uncertain`, async () => {
  const load = startWriteLoad(() => service.port, { clients: 6, students: STUDENTS, prefix: 's' });
  let worker = spawnWorker();
  let killedMidSend = 0;
  try {
    for (let kill = 0; kill < KILLS; kill++) {
      const from = codesAtGateway();
      const deadline = Date.now() + 60_000;
      while (codesAtGateway() < from + CODES_PER_KILL && Date.now() < deadline) await waitFor(2);
      // The fake gateway answers after 10 ms: the codes it took in the last 10 ms are still unanswered.
      worker.child.kill('SIGKILL');
      await worker.exited;
      killedMidSend++;
      worker = spawnWorker();
    }
  } finally {
    await load.stop();
  }

  // Wait until every acknowledged code arrived or its lease ended, then a little more.
  const store = await openStore({ dataDir: temp.dataDir });
  let rows = await store.admin.listAuthCodeMessages();
  const deadline = Date.now() + DRAIN_DEADLINE_MS;
  while (Date.now() < deadline && rows.some((row) => !['sent', 'uncertain', 'dead'].includes(row.status))) {
    await waitFor(200);
    rows = await store.admin.listAuthCodeMessages();
  }
  await waitFor(1_000);
  rows = await store.admin.listAuthCodeMessages();
  await store.lifecycle.close();
  worker.child.kill('SIGTERM');
  await worker.exited;

  const statusOf = new Map(rows.map((row) => [row.phone, row.status]));
  const acked = [...load.ackedSms];
  const twice = [...fakes.sms].filter(([, n]) => n > 1).map(([phone]) => phone);
  const sent = acked.filter((phone) => statusOf.get(phone) === 'sent');
  const uncertain = acked.filter((phone) => statusOf.get(phone) === 'uncertain');
  const uncertainReceived = uncertain.filter((phone) => fakes.sms.has(phone));
  const other = acked.filter((phone) => statusOf.get(phone) !== 'sent' && statusOf.get(phone) !== 'uncertain');
  const sentNotOnce = sent.filter((phone) => fakes.sms.get(phone) !== 1);
  process.stdout.write(
    [
      `sms kill9: ${killedMidSend} kills of the worker; calls: ${[...load.outcomes].map(([k, n]) => `${k}: ${n}`).join(', ')}`,
      `sms kill9: login codes acknowledged ${acked.length}, sent once ${sent.length}, uncertain ${uncertain.length} (of them ${uncertainReceived.length} reached the gateway, ${uncertain.length - uncertainReceived.length} did not), duplicates ${twice.length}, neither sent nor uncertain ${other.length}`,
      `sms kill9: pushes acknowledged ${load.ackedPushes.size}, delivered ${[...load.ackedPushes].filter((key) => fakes.pushes.has(key)).length}`,
      '',
    ].join('\n'),
  );

  expect(acked.length).toBeGreaterThan(KILLS * CODES_PER_KILL * 0.9);
  expect(twice).toEqual([]);
  expect(other.map((phone) => `${phone.slice(0, 6)}…: ${statusOf.get(phone)}`)).toEqual([]);
  expect(sentNotOnce).toEqual([]);
  // The kills landed mid-send: some codes are uncertain.
  expect(uncertain.length).toBeGreaterThan(0);
  // Pushes are at least once: every acknowledged one arrives.
  expect([...load.ackedPushes].filter((key) => !fakes.pushes.has(key))).toEqual([]);
});
