// Refused large bodies (docs/chaos.md): callers outside a policy's network
// send SOAP calls of 0.85 MB, as fast as they are answered, while /healthz
// is probed. Refused before its body is read, such a call costs the service
// its headers; read and parsed first, four such clients once pushed /healthz
// to 0.6-2.9 s although every call was refused with 403.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startService, type ServiceProcess } from './support/service-process';
import { floodLine, probeHealth, rssMb } from './support/under-attack';

const CLIENTS = 4;
const FLOOD_MS = Number(process.env.CHAOS_FLOOD_SECONDS ?? 10) * 1000;
const BODY_BYTES = 850_000;
/** Generous: a quiet machine answers in a few milliseconds. */
const HEALTH_P99_BOUND_MS = 1000;

const POLICY = `default:
  allow: ["10.0.0.0/8"]
`;

let dir: string;
let service: ServiceProcess;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sns-chaos-large-body-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  service = await startService({ DATA_DIR: dir, WORKER: 'false', ACCESS_POLICY: path.join(dir, 'policy.yaml') });
});
afterAll(async () => {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
});

const NS = 'http://tempuri.org/';
const body = Buffer.from(
  `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>` +
    `<GetStudentSchool xmlns="${NS}"><school_base_url>${'x'.repeat(BODY_BYTES)}</school_base_url><show_active>49</show_active></GetStudentSchool>` +
    '</soap:Body></soap:Envelope>',
);
const head = Buffer.from(
  `POST /NotificationNotes.asmx HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/xml; charset=utf-8\r\n` +
    `SOAPAction: "${NS}GetStudentSchool"\r\nContent-Length: ${body.length}\r\n\r\n`,
);

/** One call, the whole body written whatever the server does; resolves with the status, or 0 when the connection ended without one. */
function refusedCall(port: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const done = (status: number) => {
      socket.destroy();
      resolve(status);
    };
    socket.setTimeout(15_000, () => done(0));
    socket.on('error', () => done(Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0)));
    socket.on('close', () => done(Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0)));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n')) done(Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0));
    });
    socket.write(head);
    socket.write(body);
  });
}

test('refused large bodies do not hold /healthz', async () => {
  const rssBefore = rssMb(service.child.pid as number);
  const statuses: Record<string, number> = {};
  const until = Date.now() + FLOOD_MS;
  const probe = probeHealth(service.port, { intervalMs: 50 });
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < until) {
        const status = await refusedCall(service.port);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const health = await probe.stop();
  const rssAfter = rssMb(service.child.pid as number);
  const calls = Object.values(statuses).reduce((a, b) => a + b, 0);
  process.stdout.write(
    floodLine(
      'large-body flood',
      `${CLIENTS} clients, ${calls} calls of ${(body.length / 1e6).toFixed(2)} MB outside the policy's network in ${FLOOD_MS / 1000} s (answers: ${JSON.stringify(statuses)})`,
      health,
      rssBefore,
      rssAfter,
    ),
  );
  expect(statuses['403']).toBeGreaterThan(0);
  expect(Object.keys(statuses).filter((s) => s !== '403' && s !== '0')).toEqual([]);
  expect(health.failures).toBe(0);
  expect(health.p99).toBeLessThan(HEALTH_P99_BOUND_MS);
  expect(service.alive()).toBe(true);
});
