// The container image's HEALTHCHECK (docs/operating.md#deployment): asks the
// service in the same container for /healthz and exits 0 on a 200, 1 on
// anything else, without curl or wget in the image. It asks the address the
// service listens on (HOST, loopback when that is every address) on PORT, and
// gives up after HEALTHCHECK_TIMEOUT_MS (3 s), shorter than the image's
// --timeout so that a hung service is reported by this script, not killed.
// The worker has no /healthz: its check is `node scripts/healthcheck.js
// /metrics` with HEALTHCHECK_PORT set to its METRICS_PORT (compose.yaml).
const http = require('node:http');

const DEFAULT_TIMEOUT_MS = 3000;
const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);

/** Where to ask: the service's HOST unless it listens on every address, then loopback. */
function target(env, requestPath = '/healthz') {
  const host = (env.HOST ?? '').trim();
  const port = Number((env.HEALTHCHECK_PORT ?? '').trim() || (env.PORT ?? '').trim() || 8080);
  const timeoutMs = Number((env.HEALTHCHECK_TIMEOUT_MS ?? '').trim() || DEFAULT_TIMEOUT_MS);
  return {
    host: WILDCARDS.has(host) ? '127.0.0.1' : host.replace(/^\[(.*)\]$/, '$1'),
    port: Number.isInteger(port) && port > 0 && port <= 65535 ? port : 8080,
    path: requestPath.startsWith('/') ? requestPath : '/healthz',
    timeoutMs: Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : DEFAULT_TIMEOUT_MS,
  };
}

/** Resolves with null when the path answered 200, otherwise with the reason. */
function check({ host, port, path, timeoutMs }) {
  return new Promise((resolve) => {
    const req = http.get({ host, port, path, timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? null : `${path} on port ${port} answered ${res.statusCode}`);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => resolve(`${path} on port ${port} failed: ${err.message}`));
  });
}

module.exports = { check, target };

if (require.main === module) {
  void check(target(process.env, process.argv[2])).then((failure) => {
    if (failure !== null) process.stderr.write(`unhealthy: ${failure}\n`);
    process.exit(failure === null ? 0 : 1);
  });
}
