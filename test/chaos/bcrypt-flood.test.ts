// Wrong Basic passwords (docs/chaos.md): 32 clients send made-up passwords as
// fast as they are answered while /healthz and a valid user's calls are
// probed. bcrypt costs about 0.1 s of CPU a check; run on the main thread,
// such a flood once pushed /healthz to 3-8 s. Two floods: from one address
// (the failed-login throttle answers it without bcrypt), and from thousands
// of loopback addresses with made-up user names (nothing throttles it: the
// bcrypt threads and their bounded queues take it).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { startService, type ServiceProcess } from './support/service-process';
import { floodLine, probeHealth, rssMb, type ProbeFigures } from './support/under-attack';

const CLIENTS = 32;
const FLOOD_MS = Number(process.env.CHAOS_FLOOD_SECONDS ?? 10) * 1000;
/** Generous: a quiet machine answers in a few milliseconds. */
const P99_BOUND_MS = 1000;

const USER = 'sis-alnoor';
const PASSWORD = 'correct horse battery staple';
const POLICY = `users:
  ${USER}: "${bcrypt.hashSync(PASSWORD, 10)}"
default:
  auth: basic
`;
const CALL = '/NotificationNotes.asmx/GetStudentSchool?school_base_url=https%3A%2F%2Fschool-a.example&show_active=1';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const random = () => Math.random().toString(36).slice(2);

let dir: string;
let service: ServiceProcess;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sns-chaos-bcrypt-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  service = await startService({
    DATA_DIR: dir,
    WORKER: 'false',
    ACCESS_POLICY: path.join(dir, 'policy.yaml'),
    LOG_LEVEL: 'info',
  });
});
afterAll(async () => {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One GET on its own connection from `localAddress`; resolves with the status, or 0 when it failed without one. */
function wrongLogin(port: number, localAddress: string, authorization: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: CALL, agent: false, localAddress, headers: { Authorization: authorization } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(res.statusCode ?? 0));
      },
    );
    req.setTimeout(15_000, () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

interface Flood {
  readonly calls: number;
  readonly statuses: Record<string, number>;
  readonly health: ProbeFigures;
  readonly valid: ProbeFigures;
  readonly rssBefore: number;
  readonly rssAfter: number;
}

async function flood(attempt: (client: number, n: number) => { from: string; authorization: string }): Promise<Flood> {
  const rssBefore = rssMb(service.child.pid as number);
  const statuses: Record<string, number> = {};
  const until = Date.now() + FLOOD_MS;
  const health = probeHealth(service.port, { intervalMs: 50 });
  // The valid user calls from 127.0.0.1, an address the flood never uses.
  const valid = probeHealth(service.port, {
    intervalMs: 50,
    path: CALL,
    headers: { Authorization: basic(USER, PASSWORD) },
  });
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; Date.now() < until; n++) {
        const { from, authorization } = attempt(client, n);
        const status = await wrongLogin(service.port, from, authorization);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const figures = { health: await health.stop(), valid: await valid.stop() };
  const calls = Object.values(statuses).reduce((a, b) => a + b, 0);
  return { calls, statuses, ...figures, rssBefore, rssAfter: rssMb(service.child.pid as number) };
}

function report(name: string, attack: string, result: Flood): void {
  const { valid } = result;
  process.stdout.write(
    floodLine(
      name,
      `${attack}: ${result.calls} calls in ${FLOOD_MS / 1000} s (answers: ${JSON.stringify(result.statuses)})`,
      result.health,
      result.rssBefore,
      result.rssAfter,
    ) +
      `${name}: the valid user's calls during it: ${valid.tries} tries, p50 ${valid.p50.toFixed(1)} ms, p99 ${valid.p99.toFixed(1)} ms, max ${valid.max.toFixed(1)} ms, ` +
      `${valid.failures} failed${valid.failures === 0 ? '' : ` ${JSON.stringify(valid.failedAs)}`}\n`,
  );
}

function expectHeld(result: Flood): void {
  expect(Object.keys(result.statuses).filter((s) => s !== '401')).toEqual([]);
  expect(result.health.failures).toBe(0);
  expect(result.valid.failures).toBe(0);
  expect(result.health.p99).toBeLessThan(P99_BOUND_MS);
  expect(result.valid.p99).toBeLessThan(P99_BOUND_MS);
  expect(service.alive()).toBe(true);
}

test('wrong passwords for a real user from one address do not hold /healthz or the valid user', async () => {
  const result = await flood(() => ({ from: '127.1.0.1', authorization: basic(USER, random()) }));
  report('bcrypt flood, one address', `${CLIENTS} clients from 127.1.0.1, random passwords for ${USER}`, result);
  expectHeld(result);
});

test('wrong logins from thousands of addresses do not hold /healthz or the valid user', async () => {
  // Client c rotates over 127.2.c.1-250: 8,000 addresses, each under the throttle's allowance.
  const result = await flood((client, n) => ({
    from: `127.2.${client}.${(n % 250) + 1}`,
    authorization: basic(`user-${random()}`, random()),
  }));
  report(
    'bcrypt flood, many addresses',
    `${CLIENTS} clients from 8,000 loopback addresses, random user names and passwords`,
    result,
  );
  expectHeld(result);
});
