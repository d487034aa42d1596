// Which HTTP/2 client FCM sends go through: CPU per message of a bare
// node:http2 client (BENCH_H2_SESSIONS sessions, default 4, a request on each
// in turn, the answer read and nothing else: the floor any sender pays), of
// node:http2 through src/delivery/http/h2-pool.ts as the service uses it, and
// of undici 7 with allowH2, against the same TLS HTTP/2 server in another
// process (so that only the client's CPU is counted). Each sends
// BENCH_H2_MESSAGES FCM-sized POSTs, BENCH_H2_CONCURRENCY at a time (default
// 200), to a server answering after BENCH_H2_LATENCY_MS (default 0; +-20 %
// as scripts/bench-delivery.ts's fake). The server is the tests' fake FCM
// (test/delivery/support/fake-h2-server.ts).
// Run after `npm run build`:
// node -r ./test/delivery/support/register-ts.js scripts/bench-h2-client.ts
// BENCH_H2_CLIENTS=bare,pool (any of bare, pool, undici) runs some of them;
// BENCH_H2_JSON=1 prints one line of JSON, each client's median CPU µs per
// message (scripts/bench-delivery.ts runs it so after each drain, with the
// streams in flight, the sessions and the latency that drain had:
// docs/delivery.md#cpu-per-push).
import { spawn } from 'node:child_process';
import http2 from 'node:http2';
import path from 'node:path';
import undici from 'undici';
import type * as H2PoolModule from '../src/delivery/http/h2-pool';
import { selfSignedCertificate } from '../test/delivery/support/fake-h2-server';
import { built, checkPositive, root, runMain, scaled, smokeHas, TS_HOOK } from './bench-support';

const { H2Pool } = built<typeof H2PoolModule>('delivery/http/h2-pool');

const MESSAGES = scaled('BENCH_H2_MESSAGES', 20_000, 50);
const CONCURRENCY = scaled('BENCH_H2_CONCURRENCY', 200, 10);
const ROUNDS = scaled('BENCH_H2_ROUNDS', 3, 1);
const CLIENTS = (process.env.BENCH_H2_CLIENTS ?? 'bare,pool,undici').split(',').filter(Boolean);
const JSON_OUT = process.env.BENCH_H2_JSON === '1';
const SESSIONS = scaled('BENCH_H2_SESSIONS', 4, 4);
const LATENCY_MS = scaled('BENCH_H2_LATENCY_MS', 0, 0);
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
  const latencyMs = Number(process.env.LATENCY_MS);
  const answer = { status: 200, body: { name: 'projects/p/messages/1' } };
  fake.handle(() => {
    fake.received.length = 0;
    if (latencyMs === 0) return answer;
    return new Promise((resolve) => setTimeout(() => resolve(answer), latencyMs * (0.8 + 0.4 * Math.random())));
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

/** A bare node:http2 client: SESSIONS sessions used in turn, the answer's status and body read, nothing more. */
function bareClient(origin: string, ca: string): { send: () => Promise<number>; close: () => void } {
  const sessions = Array.from({ length: SESSIONS }, () => http2.connect(origin, { ca }));
  let next = 0;
  return {
    send: () =>
      new Promise<number>((resolve, reject) => {
        const stream = sessions[next++ % SESSIONS].request({
          ':method': 'POST',
          ':path': '/v1/projects/p/messages:send',
          ...HEADERS,
        });
        let status = 0;
        const chunks: Buffer[] = [];
        stream.on('response', (headers) => {
          status = Number(headers[':status']);
        });
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          Buffer.concat(chunks).toString('utf8');
          resolve(status);
        });
        stream.on('error', reject);
        stream.end(BODY);
      }),
    close: () => sessions.forEach((session) => session.close()),
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

async function main(): Promise<void> {
  const { key, cert } = selfSignedCertificate();
  const server = spawn(process.execPath, [...TS_HOOK, '-e', SERVER], {
    env: { KEY: key, CERT: cert, LATENCY_MS: String(LATENCY_MS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve) =>
    server.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
  const origin = `https://127.0.0.1:${port}`;
  try {
    const results: Array<readonly [string, string, Round[]]> = [];
    if (CLIENTS.includes('bare')) {
      const bare = bareClient(origin, cert);
      results.push(['bare', 'node:http2, bare', await run('bare node:http2', bare.send)]);
      bare.close();
    }
    if (CLIENTS.includes('pool')) {
      const pool = new H2Pool({ origin, maxSessions: SESSIONS, ca: cert });
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
      results.push(['pool', 'node:http2 (H2Pool)', viaNode]);
    }
    if (CLIENTS.includes('undici')) {
      const agent = new undici.Agent({ allowH2: true, connections: SESSIONS, connect: { ca: cert } });
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
      results.push(['undici', 'undici 7, allowH2', viaUndici]);
    }
    if (JSON_OUT) {
      console.log(
        JSON.stringify(Object.fromEntries(results.map(([key, , rounds]) => [key, median(rounds.map((r) => r.cpuUs))]))),
      );
      return;
    }
    console.log(
      `HTTP/2 clients, ${MESSAGES} POSTs each round, ${CONCURRENCY} in flight over up to ${SESSIONS} sessions, server after ${LATENCY_MS} ms, ${ROUNDS} rounds (client CPU per message, µs; messages/s)`,
    );
    console.log('| client | CPU µs per message | messages/s |');
    console.log('|---|---|---|');
    for (const [, name, rounds] of results) {
      console.log(
        `| ${name} | ${rounds.map((r) => r.cpuUs.toFixed(0)).join(', ')} | ${rounds.map((r) => Math.round(r.rate)).join(', ')} |`,
      );
    }
  } finally {
    server.kill();
  }
}

// The server's certificate is made with openssl.
if (smokeHas('openssl', 'bench-h2-client.ts')) runMain(main);
