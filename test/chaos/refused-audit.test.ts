// Refused calls and the audit trail (docs/chaos.md): a caller over its
// GetTokenDevice budget sends SOAP calls whose device id is about a megabyte,
// from a few connections at once, while /healthz is probed and the audit is
// listed through the admin API. Every refusal of a read of personal data is
// audited; once each kept its whole id, 100 such calls added 200 MB to the
// audit table and one admin page of them was 95 MiB.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startService, type ServiceProcess } from './support/service-process';
import { floodLine, probeHealth, rssMb } from './support/under-attack';

const CLIENTS = 4;
const CALLS = Number(process.env.CHAOS_REFUSED_CALLS ?? 1000);
const ID_CHARS = 1_000_000;
const ADMIN_TOKEN = 'chaos-admin-token-0123456789';
/** Generous: a quiet machine answers in a few milliseconds. */
const HEALTH_P99_BOUND_MS = 2000;
/** The admin API's byte budget per page is 1 MiB; one more row may cross it. */
const ADMIN_PAGE_BOUND_BYTES = 1.1 * 1024 * 1024;
/** Refusal entries kept one by one per caller per minute (src/access/refusal-allowance.ts). */
const ALLOWANCE = 60;
const TABLE_BOUND_BYTES = 5 * 1024 * 1024;

// Every read of personal data is budgeted (the policy fails closed otherwise);
// the first GetTokenDevice call of the hour is let through, every other refused for its limit.
const POLICY = `default:
  limit: 1/1h
`;

let dir: string;
let service: ServiceProcess;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sns-chaos-refused-audit-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  service = await startService({
    DATA_DIR: dir,
    WORKER: 'false',
    ACCESS_POLICY: path.join(dir, 'policy.yaml'),
    ADMIN_TOKEN,
  });
});
afterAll(async () => {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
});

const NS = 'http://tempuri.org/';

function call(port: number, n: number): Promise<number> {
  const id = `${String(n).padStart(7, '0')}${'7'.repeat(ID_CHARS - 7)}`;
  const body = Buffer.from(
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>` +
      `<GetTokenDevice xmlns="${NS}"><id>${id}</id></GetTokenDevice></soap:Body></soap:Envelope>`,
  );
  const head = Buffer.from(
    `POST /PushNotificationMobile.asmx HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/xml; charset=utf-8\r\n` +
      `SOAPAction: "${NS}GetTokenDevice"\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
  );
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const done = () => {
      socket.destroy();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0));
    };
    socket.setTimeout(30_000, done);
    socket.on('error', done);
    socket.on('close', done);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n')) done();
    });
    socket.write(head);
    socket.write(body);
  });
}

interface AuditPage {
  readonly bytes: number;
  readonly items: { subject: string | null }[];
  readonly total: number;
  readonly nextOffset: number | null;
}

async function listAudit(offset: number): Promise<AuditPage> {
  const res = await fetch(`http://127.0.0.1:${service.port}/admin/api/v1/audit?limit=500&offset=${offset}`, {
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const text = await res.text();
  expect(res.status).toBe(200);
  const body = JSON.parse(text) as Omit<AuditPage, 'bytes'>;
  return { ...body, bytes: Buffer.byteLength(text) };
}

interface AuditTable {
  readonly bytes: number;
  readonly entries: number;
  readonly refusedKept: number;
  readonly summaries: number;
  readonly omitted: number;
  readonly fileBytes: number;
}

function auditTable(): AuditTable {
  const file = path.join(dir, 'service.sqlite');
  const db = new Database(file, { readonly: true });
  try {
    const size = (name: string) =>
      Number(
        (db.prepare('select coalesce(sum(pgsize), 0) as n from dbstat where name = ?').get(name) as { n: number }).n,
      );
    const indexes = db
      .prepare("select name from sqlite_master where type = 'index' and tbl_name = 'access_audit'")
      .all() as { name: string }[];
    const bytes = size('access_audit') + indexes.reduce((sum, index) => sum + size(index.name), 0);
    const columns = new Set(
      (db.prepare('pragma table_info(access_audit)').all() as { name: string }[]).map((c) => c.name),
    );
    const count = (where: string) =>
      Number((db.prepare(`select count(*) as n from access_audit where ${where}`).get() as { n: number }).n);
    const hasOmitted = columns.has('omitted');
    return {
      bytes,
      entries: count('1 = 1'),
      refusedKept: count(hasOmitted ? "outcome = 'refused' and omitted is null" : "outcome = 'refused'"),
      summaries: hasOmitted ? count('omitted is not null') : 0,
      omitted: hasOmitted
        ? Number((db.prepare('select coalesce(sum(omitted), 0) as n from access_audit').get() as { n: number }).n)
        : 0,
      fileBytes: ['', '-wal'].reduce(
        (sum, suffix) => sum + (statSync(`${file}${suffix}`, { throwIfNoEntry: false })?.size ?? 0),
        0,
      ),
    };
  } finally {
    db.close();
  }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

test('refused calls with megabyte ids leave a bounded audit trail', async () => {
  const rssBefore = rssMb(service.child.pid as number);
  const statuses: Record<string, number> = {};
  const probe = probeHealth(service.port, { intervalMs: 50 });
  const startedAt = Date.now();
  let next = 0;
  let attacking = true;
  const pagesDuring: number[] = [];
  const lister = (async () => {
    while (attacking) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      pagesDuring.push((await listAudit(0)).bytes);
    }
  })();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < CALLS) {
        const status = await call(service.port, next++);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  attacking = false;
  await lister;
  const endedAt = Date.now();
  const health = await probe.stop();
  const rssAfter = rssMb(service.child.pid as number);

  // Every page of the listing after the attack, followed by nextOffset.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const pagesAfter: AuditPage[] = [];
  for (
    let offset: number | null = 0;
    offset !== null && pagesAfter.length < 50;
    offset = pagesAfter.at(-1)?.nextOffset ?? null
  ) {
    pagesAfter.push(await listAudit(offset));
  }
  const listed = pagesAfter.reduce((sum, page) => sum + page.items.length, 0);
  const largestPage = Math.max(...pagesDuring, ...pagesAfter.map((page) => page.bytes));

  // Stopping writes what the trail still holds (summaries of the current window too).
  await service.stop();
  const table = auditTable();
  process.stdout.write(
    floodLine(
      'refused audit',
      `${CLIENTS} clients, ${CALLS} GetTokenDevice calls with a ${mb(ID_CHARS)} id over the caller's budget in ${((endedAt - startedAt) / 1000).toFixed(1)} s (answers: ${JSON.stringify(statuses)})`,
      health,
      rssBefore,
      rssAfter,
    ) +
      `refused audit: access_audit ${mb(table.bytes)} with its indexes (database file and WAL ${mb(table.fileBytes)}), ${table.entries} entries ` +
      `(${table.refusedKept} refusals kept, ${table.summaries} summaries of ${table.omitted} left out); admin pages of 500: largest ${(largestPage / 1024).toFixed(0)} KiB, ` +
      `${pagesAfter.length} pages listing ${listed} entries\n`,
  );

  const refused = statuses['500'] ?? 0;
  expect(refused).toBeGreaterThan(CALLS * 0.9);
  expect(Object.keys(statuses).filter((s) => s !== '200' && s !== '500')).toEqual([]);
  expect(health.failures).toBe(0);
  expect(health.p99).toBeLessThan(HEALTH_P99_BOUND_MS);
  expect(largestPage).toBeLessThan(ADMIN_PAGE_BOUND_BYTES);
  expect(table.bytes).toBeLessThan(TABLE_BOUND_BYTES);
  // One allowance per caller per minute the attack touched, each with its summary; every refusal kept or counted.
  const windows = Math.floor(endedAt / 60_000) - Math.floor(startedAt / 60_000) + 1;
  expect(table.refusedKept).toBeLessThanOrEqual(windows * ALLOWANCE);
  expect(table.summaries).toBeLessThanOrEqual(windows);
  expect(table.refusedKept + table.omitted).toBe(refused);
});
