// The benchmark's baselines: fixed bytes, identical to the service's answer
// for each case (same status, headers and body), so that the ratio measures
// what the service adds. BASELINE=express (the default) answers from a bare
// Express route; BASELINE=node-http from node:http's own request listener,
// the cheapest an HTTP exchange gets on this runtime. ANSWERS names the file
// of answers scripts/bench.ts captured from the service.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { answerKey } from './bench-answer-key';

/** An answer as scripts/bench.ts captures it: its body in base64. */
export interface CapturedAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const answers = JSON.parse(readFileSync(process.env.ANSWERS ?? '', 'utf8')) as Record<string, CapturedAnswer>;
const fixed = new Map(
  Object.entries(answers).map(([key, a]) => {
    const body = Buffer.from(a.body, 'base64');
    return [key, { status: a.status, headers: { ...a.headers, 'content-length': body.length }, body }];
  }),
);

function answer(req: IncomingMessage, res: ServerResponse, url: string): void {
  const found = fixed.get(answerKey(req.method ?? '', url, req.headers));
  if (found === undefined) {
    res.statusCode = 404;
    res.end();
    return;
  }
  // Drain the request body as any server must, then answer.
  req.resume();
  req.on('end', () => {
    res.writeHead(found.status, found.headers);
    res.end(found.body);
  });
}

function baseline() {
  if (process.env.BASELINE === 'node-http') return createServer((req, res) => answer(req, res, req.url ?? ''));
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.all('/{*path}', (req, res) => answer(req, res, req.originalUrl));
  return createServer(app);
}

const server = baseline();
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
