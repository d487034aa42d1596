// Which HTTP/2 client FCM sends go through: CPU per message of node:http2
// (src/delivery/http/h2-pool.ts, as the service uses it) and of undici 7
// with allowH2, against the same TLS HTTP/2 server in another process (so
// that only the client's CPU is counted). Each sends BENCH_H2_MESSAGES
// FCM-sized POSTs, BENCH_H2_CONCURRENCY at a time, over up to 4 sessions.
// Run after `npm run build`: node scripts/bench-h2-client.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { checkPositive, makeCertificate, root, scaled, smokeHas } from './bench-support.mjs';

const require = createRequire(import.meta.url);
const { H2Pool } = require(path.join(root, 'dist/delivery/http/h2-pool'));
const undici = require('undici');

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

const SERVER = `
const http2 = require('node:http2');
const server = http2.createSecureServer({ key: process.env.KEY, cert: process.env.CERT, settings: { maxConcurrentStreams: 100 } }, (req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"name":"projects/p/messages/1"}'); });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

async function run(name, send) {
  const results = [];
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

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-h2-bench-'));
  const { key, cert } = makeCertificate(dir);
  const server = spawn(process.execPath, ['-e', SERVER], {
    env: { KEY: key, CERT: cert },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve) =>
    server.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim()))),
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
    ]) {
      console.log(
        `| ${name} | ${results.map((r) => r.cpuUs.toFixed(0)).join(', ')} | ${results.map((r) => Math.round(r.rate)).join(', ')} |`,
      );
    }
  } finally {
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

// The server's certificate is made with openssl.
if (smokeHas('openssl', 'bench-h2-client.mjs'))
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
