// Which HTTP/2 client FCM sends go through: CPU per message of node:http2
// (src/delivery/http/h2-pool.ts, as the service uses it) and of undici 7
// with allowH2, against the same TLS HTTP/2 server in another process (so
// that only the client's CPU is counted). Each sends BENCH_H2_MESSAGES
// FCM-sized POSTs, BENCH_H2_CONCURRENCY at a time, over up to 4 sessions.
// The server is the tests' fake FCM (test/delivery/support/fake-h2-server.ts).
// Run after `npm run build`:
// node -r ./test/delivery/support/register-ts.js scripts/bench-h2-client.ts
import { spawn } from 'node:child_process';
import path from 'node:path';
import undici from 'undici';
import type * as H2PoolModule from '../src/delivery/http/h2-pool';
import { selfSignedCertificate } from '../test/delivery/support/fake-h2-server';
import { built, checkPositive, root, runMain, scaled, smokeHas, TS_HOOK } from './bench-support';

const { H2Pool } = built<typeof H2PoolModule>('delivery/http/h2-pool');

const MESSAGES = scaled('BENCH_H2_MESSAGES', 20_000, 50);
const CONCURRENCY = scaled('BENCH_H2_CONCURRENCY', 200, 10);
const ROUNDS = scaled('BENCH_H2_ROUNDS', 3, 1);
const BODY = JSON.stringify({
  message: {
    token: `fcm-token-${'x'.repeat(140)}`,
    notification: { title: 'غياب | Absence', body: 'تم تسجيل غياب\nAn absence was recorded.' },
    data: { type: 'absence', studentId: '100001', notificationId: '0'.repeat(26) },
  },
});
const HEADERS = { authorization: `Bearer ${'t'.repeat(180)}`, 'content-type': 'application/json; charset=utf-8' };

// The fake in a process of its own, so that only the client's CPU is counted here; it keeps no request.
const SERVER = `
const { FakeH2Server } = require(${JSON.stringify(path.join(root, 'test/delivery/support/fake-h2-server.ts'))});
FakeH2Server.start({ tls: { key: process.env.KEY, cert: process.env.CERT } }).then((fake) => {
  fake.handle(() => {
    fake.received.length = 0;
    return { status: 200, body: { name: 'projects/p/messages/1' } };
  });
  console.log(new URL(fake.origin).port);
});
`;

interface Round {
  readonly cpuUs: number;
  readonly rate: number;
}

async function run(name: string, send: () => Promise<number>): Promise<Round[]> {
  const results: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let next = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < MESSAGES) {
          next++;
          const status = await send();
          if (status !== 200) throw new Error(`${name}: HTTP ${status}`);
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    results.push({
      cpuUs: checkPositive(`${name}: CPU µs per message`, (used.user + used.system) / MESSAGES),
      rate: checkPositive(`${name}: messages/s`, (MESSAGES / (performance.now() - started)) * 1000),
    });
  }
  return results;
}

async function main(): Promise<void> {
  const { key, cert } = selfSignedCertificate();
  const server = spawn(process.execPath, [...TS_HOOK, '-e', SERVER], {
    env: { KEY: key, CERT: cert },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve) =>
    server.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
  const origin = `https://127.0.0.1:${port}`;
  try {
    const pool = new H2Pool({ origin, maxSessions: 4, ca: cert });
    const viaNode = await run('node:http2', async () => {
      const answer = await pool.request({
        path: '/v1/projects/p/messages:send',
        method: 'POST',
        headers: HEADERS,
        body: BODY,
        timeoutMs: 10_000,
      });
      return answer.ok ? answer.status : 0;
    });
    pool.close();
    const agent = new undici.Agent({ allowH2: true, connections: 4, connect: { ca: cert } });
    const viaUndici = await run('undici', async () => {
      const { statusCode, body } = await undici.request(`${origin}/v1/projects/p/messages:send`, {
        method: 'POST',
        headers: HEADERS,
        body: BODY,
        dispatcher: agent,
      });
      await body.text();
      return statusCode;
    });
    await agent.close();
    console.log(
      `HTTP/2 clients, ${MESSAGES} POSTs each round, ${CONCURRENCY} in flight, ${ROUNDS} rounds (client CPU per message, µs; messages/s)`,
    );
    console.log('| client | CPU µs per message | messages/s |');
    console.log('|---|---|---|');
    for (const [name, results] of [
      ['node:http2 (H2Pool)', viaNode],
      ['undici 7, allowH2', viaUndici],
    ] as const) {
      console.log(
        `| ${name} | ${results.map((r) => r.cpuUs.toFixed(0)).join(', ')} | ${results.map((r) => Math.round(r.rate)).join(', ')} |`,
      );
    }
  } finally {
    server.kill();
  }
}

// The server's certificate is made with openssl.
if (smokeHas('openssl', 'bench-h2-client.ts')) runMain(main);
