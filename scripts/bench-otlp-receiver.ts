// A local OTLP/HTTP receiver for `BENCH_OTEL=1 npm run bench`: takes the
// service's JSON exports on POST /v1/traces as a collector would (reads and
// parses each), counts the spans, and tells the count on GET /count. Unlike
// the tests' receiver (test/support/otlp-receiver.ts), it keeps no span: a
// benchmark sends hundreds of thousands.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What GET /count answers. */
export interface SpanCount {
  readonly spans: number;
  readonly exports: number;
}

let spans = 0;
// Not `exports`: this file is a CommonJS module once transpiled, where that name is taken.
let exportsTaken = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/count') {
    const count: SpanCount = { spans, exports: exportsTaken };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(count));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[];
    };
    for (const resource of body.resourceSpans ?? [])
      for (const scope of resource.scopeSpans ?? []) spans += (scope.spans ?? []).length;
    exportsTaken++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
