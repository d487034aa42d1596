// The benchmark's baseline: a bare Express route answering fixed bytes,
// identical to the service's answer for each case (same status, headers and
// body), so that the ratio measures what the service adds.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const express = require('express');

const answers = JSON.parse(readFileSync(process.env.ANSWERS, 'utf8'));
const fixed = new Map(
  Object.entries(answers).map(([key, a]) => {
    const body = Buffer.from(a.body, 'base64');
    return [key, { status: a.status, headers: { ...a.headers, 'content-length': body.length }, body }];
  }),
);

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.all('/{*path}', (req, res) => {
  const answer = fixed.get(`${req.method} ${req.originalUrl}`);
  if (answer === undefined) {
    res.status(404).end();
    return;
  }
  // Drain the request body as any server must, then answer.
  req.resume();
  req.on('end', () => {
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  });
});
const server = app.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
