// A local OTLP/HTTP receiver for `BENCH_OTEL=1 npm run bench`: takes the
// service's JSON exports on POST /v1/traces as a collector would (reads and
// parses each), counts the spans, and tells the count on GET /count.
import { createServer } from 'node:http';

let spans = 0;
let exports = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/count') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ spans, exports }));
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    for (const resource of body.resourceSpans ?? [])
      for (const scope of resource.scopeSpans ?? []) spans += (scope.spans ?? []).length;
    exports++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
