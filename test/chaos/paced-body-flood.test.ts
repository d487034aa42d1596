// Bodies paced just above the minimum rate (docs/chaos.md): 260 POSTs whose
// bodies arrive at 1,500 B/s, over BODY_MIN_RATE's 1,024, so none is cut off
// as slow, while /healthz is probed on new connections. With MAX_CONNECTIONS
// at 256 and no per-address cap, such bodies from one address held every
// slot and /healthz answered "503 Too many connections." for 20 s. Two
// floods: from the probe's own address (the per-address cap stops it, and the
// probe is answered from the reserve), and from five addresses, more than the
// global cap takes (the global gate still refuses the excess while the probe
// is answered).
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startService, type ServiceProcess } from './support/service-process';
import { floodLine, probeHealth, rssMb, type ProbeFigures } from './support/under-attack';

const BODIES = 260;
const MAX_CONNECTIONS = 256;
const FLOOD_MS = Number(process.env.CHAOS_FLOOD_SECONDS ?? 15) * 1000;
/** Bytes a second each body is sent at: over the 1,024 minimum, so never cut off as slow. */
const RATE = 1500;
const TICK_MS = 100;
/** Generous for a shared machine; the point is that no probe is refused. */
const HEALTH_P99_BOUND_MS = 1000;

let dir: string;
let service: ServiceProcess;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sns-chaos-paced-body-'));
  service = await startService({ DATA_DIR: dir, WORKER: 'false', MAX_CONNECTIONS: String(MAX_CONNECTIONS) });
});
afterAll(async () => {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
});

const HEAD =
  'POST /NotificationNotes.asmx HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: "http://tempuri.org/GetStudentSchool"\r\nContent-Length: 1000000\r\n\r\n';

interface Flood {
  readonly opened: number;
  /** Answers by status line text ("503 Too many connections from this address."), "closed" without one. */
  readonly answers: Readonly<Record<string, number>>;
  readonly health: ProbeFigures;
  readonly rssBefore: number;
  readonly rssAfter: number;
}

/** BODIES paced POSTs from `addresses` (in turn) until the flood ends, each reopened when the server ends it. */
async function pacedFlood(addresses: readonly string[]): Promise<Flood> {
  const pid = service.child.pid as number;
  const rssBefore = rssMb(pid);
  const until = Date.now() + FLOOD_MS;
  let opened = 0;
  const answers: Record<string, number> = {};
  const live = new Set<net.Socket>();
  const chunk = ' '.repeat((RATE * TICK_MS) / 1000);
  const ticker = setInterval(() => {
    for (const socket of live) if (socket.writable) socket.write(chunk);
  }, TICK_MS);
  const one = (i: number): Promise<void> =>
    new Promise((resolve) => {
      opened++;
      const socket = net.connect({
        port: service.port,
        host: '127.0.0.1',
        localAddress: addresses[i % addresses.length],
      });
      let received = '';
      const stop = setTimeout(() => socket.destroy(), Math.max(0, until - Date.now()));
      socket.on('connect', () => {
        socket.write(HEAD);
        live.add(socket);
      });
      socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        live.delete(socket);
        clearTimeout(stop);
        if (Date.now() < until) {
          const status = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n[\s\S]*?\r\n\r\n([^\r]*)/.exec(received);
          const key = status === null ? 'closed' : `${status[1]} ${status[2]}`;
          answers[key] = (answers[key] ?? 0) + 1;
        }
        resolve();
      });
    });
  const flood = Promise.all(
    Array.from({ length: BODIES }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, (i / BODIES) * 1000));
      while (Date.now() < until) {
        await one(i);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }),
  );
  // Probed once the flood has had time to take every slot it can.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const probe = probeHealth(service.port, { intervalMs: 50, timeoutMs: 5000 });
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now())));
  const health = await probe.stop();
  const rssAfter = rssMb(pid);
  await flood;
  clearInterval(ticker);
  return { opened, answers, health, rssBefore, rssAfter };
}

const describeAttack = (what: string, flood: Flood) =>
  `${BODIES} bodies at ${RATE} B/s from ${what}, MAX_CONNECTIONS ${MAX_CONNECTIONS}, ${flood.opened} connections opened in ${FLOOD_MS / 1000} s (answers: ${JSON.stringify(flood.answers)})`;

test('bodies paced over the minimum rate from one address: its other connections are refused and /healthz always answers', async () => {
  const flood = await pacedFlood(['127.0.0.1']);
  process.stdout.write(
    floodLine(
      'paced bodies, one address',
      describeAttack('127.0.0.1', flood),
      flood.health,
      flood.rssBefore,
      flood.rssAfter,
    ),
  );
  expect(flood.answers['503 Too many connections from this address.']).toBeGreaterThan(0);
  expect(flood.health.failures).toBe(0);
  expect(flood.health.p99).toBeLessThan(HEALTH_P99_BOUND_MS);
  expect(service.alive()).toBe(true);
}, 120_000);

test('bodies paced over the minimum rate from five addresses, more than the cap: the global gate refuses the excess and /healthz always answers', async () => {
  const addresses = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'];
  const flood = await pacedFlood(addresses);
  process.stdout.write(
    floodLine(
      'paced bodies, five addresses',
      describeAttack('127.0.0.2-6', flood),
      flood.health,
      flood.rssBefore,
      flood.rssAfter,
    ),
  );
  expect(flood.answers['503 Too many connections.']).toBeGreaterThan(0);
  expect(flood.health.failures).toBe(0);
  expect(flood.health.p99).toBeLessThan(HEALTH_P99_BOUND_MS);
  expect(service.alive()).toBe(true);
}, 120_000);
