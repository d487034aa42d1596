// The benchmark's baselines: fixed bytes, identical to the service's answer
// for each case (same status, headers and body), so that the ratio measures
// what the service adds. BASELINE=express (the default) answers from a bare
// Express route; BASELINE=node-http from node:http's own request listener,
// the cheapest an HTTP exchange gets on this runtime.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

const answers = JSON.parse(readFileSync(process.env.ANSWERS, 'utf8'));
const fixed = new Map(
  Object.entries(answers).map(([key, a]) => {
    const body = Buffer.from(a.body, 'base64');
    return [key, { status: a.status, headers: { ...a.headers, 'content-length': body.length }, body }];
  }),
);

function answer(req, res, url) {
  const found = fixed.get(`${req.method} ${url}`);
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

let server;
if (process.env.BASELINE === 'node-http') {
  server = createServer((req, res) => answer(req, res, req.url));
} else {
  const express = require('express');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.all('/{*path}', (req, res) => answer(req, res, req.originalUrl));
  server = createServer(app);
}
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
