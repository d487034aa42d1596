// What the benchmarks (scripts/bench*.mjs) and npm run soak (scripts/soak.mjs)
// share: the repository root, the Node flags `npm start` gives the service,
// the request each binding sends, a child process started until it listens
// (or says it is ready), its memory and CPU from /proc (and PostgreSQL's and
// the machine's), a self-signed certificate and a key file for fake FCMs, and
// the smoke mode every script runs in from `npm test`.
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { accessSync, constants, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The service runs with the Node flags `npm start` gives it (package.json).
// BENCH_NODE_FLAGS replaces them (space-separated; `none` for Node's defaults) to measure a flag's worth
// (docs/architecture.md#the-node-flag).
export const NODE_FLAGS =
  process.env.BENCH_NODE_FLAGS === undefined
    ? JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
        .scripts.start.split(/\s+/)
        .filter((arg) => arg.startsWith('--'))
    : process.env.BENCH_NODE_FLAGS.split(/\s+/).filter((arg) => arg.startsWith('--'));

// Smoke mode (BENCH_SMOKE=1, docs/testing.md#the-scripts-smoke-mode): every
// script runs its full path with the smallest counts and durations that still
// exercise it, so that test/unit/scripts-smoke.test.ts sees a script broken by
// a change elsewhere. Read here only; the scripts take their sizes from scaled().
export const SMOKE = process.env.BENCH_SMOKE === '1';
if (SMOKE)
  console.log('smoke mode (BENCH_SMOKE=1): tiny counts and durations; the figures are checks, not measurements');

/**
 * A count, duration or size: `smoke` in smoke mode (the environment is not
 * read then, so that a smoke run is the same everywhere); otherwise the
 * environment variable `name` as a number when it is set (`name` null: none
 * overrides it), else `full`.
 */
export function scaled(name, full, smoke) {
  if (SMOKE) return smoke;
  return name === null || process.env[name] === undefined ? full : Number(process.env[name]);
}

// What a smoke run adds to autocannon's options: a number of requests instead
// of a duration (a fresh service on a busy machine may answer none in a short
// one), sampled every 50 ms instead of every second (autocannon runs for at
// least one sample; its rates, requests.average, are then per 50 ms, still
// comparable with each other).
export const LOAD_OPTIONS = SMOKE ? { amount: 20, sampleInt: 50 } : {};

/** An autocannon callback settling a promise with `check(result)`, or with what it threw. */
export function settleLoad(resolve, reject, check = (result) => result) {
  return (err, result) => {
    if (err) reject(err);
    else
      try {
        resolve(check(result));
      } catch (error) {
        reject(error);
      }
  };
}

/** Says that a part of a script is left out, and why (a tool or a database this machine lacks). */
export function skipPart(part, why) {
  console.log(`${part} skipped: ${why}`);
}

/** Whether a program is on PATH (openssl, taskset): what a part that runs one needs. */
export function onPath(program) {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * In smoke mode, whether `program` is there for `script`; when it is not,
 * says so: the caller then skips what needs it (npm test needs nothing beyond
 * npm install). Outside smoke mode, true: a full run fails where it is missing.
 */
export function smokeHas(program, script) {
  if (!SMOKE || onPath(program)) return true;
  skipPart(script, `${program} is not on PATH`);
  return false;
}

/**
 * Throws unless `value` is a finite number of at least `min` (0 by default):
 * a script's own result checked, so that a broken path exits non-zero instead
 * of printing NaN.
 */
export function checkFigure(what, value, min = 0) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
    throw new Error(`${what}: ${value} is not a figure of at least ${min}`);
  return value;
}

/** checkFigure for what must be above 0: a rate, a count, a ratio. */
export function checkPositive(what, value) {
  checkFigure(what, value);
  if (value <= 0) throw new Error(`${what}: ${value} is not above 0`);
  return value;
}

export const NS = 'http://tempuri.org/';
export const BINDINGS = ['SOAP 1.1', 'SOAP 1.2', 'HTTP GET', 'HTTP POST'];

export function envelope(version, op, params) {
  const env =
    version === '1.1' ? 'http://schemas.xmlsoap.org/soap/envelope/' : 'http://www.w3.org/2003/05/soap-envelope';
  const inner = Object.entries(params)
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('');
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${env}"><soap:Body><${op} xmlns="${NS}">${inner}</${op}></soap:Body></soap:Envelope>`;
}

/** One call over one binding, as real clients send it; `soapParams` where SOAP's values differ (a char's code). */
export function request(endpoint, op, params, binding, soapParams = params) {
  if (binding === 'SOAP 1.1')
    return {
      method: 'POST',
      path: `/${endpoint}.asmx`,
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${NS}${op}"` },
      body: envelope('1.1', op, soapParams),
    };
  if (binding === 'SOAP 1.2')
    return {
      method: 'POST',
      path: `/${endpoint}.asmx`,
      headers: { 'content-type': `application/soap+xml; charset=utf-8; action="${NS}${op}"` },
      body: envelope('1.2', op, soapParams),
    };
  if (binding === 'HTTP GET')
    return { method: 'GET', path: `/${endpoint}.asmx/${op}?${new URLSearchParams(params)}`, headers: {} };
  return {
    method: 'POST',
    path: `/${endpoint}.asmx/${op}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  };
}

/**
 * Starts `node NODE_FLAGS script` with `env` over `baseEnv` and resolves with
 * the port from its `listening` line (the service's JSON log, or the
 * baseline's `listening PORT`). Its output is read only until then.
 */
export function startChild(script, env, baseEnv = process.env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, script], {
      env: { ...baseEnv, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      const match = /^(?=.*listening).*"port":(\d+)/m.exec(out) ?? /^listening (\d+)$/m.exec(out);
      if (match) {
        // From here on the service writes an access-log line per request:
        // drain it without keeping or scanning it.
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({ child, port: Number(match[1]) });
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening:\n${out}`)));
  });
}

// /proc/PID/stat: the command's name between parentheses, then the fields;
// utime and stime (fields 14 and 15) in clock ticks, 100 a second on Linux.
function readStat(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  return { command: text.slice(text.indexOf('(') + 1, close), cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 };
}

/** CPU time (user + system) a process has used so far, in ms, from /proc/PID/stat; null where there is no /proc. */
export function cpuMs(pid) {
  try {
    return readStat(pid).cpuMs;
  } catch {
    return null;
  }
}

/** The machine's CPU counters so far (all cores, clock ticks): busy and total; null where there is no /proc. */
export function machineTicks() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    // idle and iowait are the 4th and 5th.
    return { busy: total - fields[3] - fields[4], total };
  } catch {
    return null;
  }
}

/** CPU so far of each PostgreSQL server process on this machine (pid to ms); empty when none can be read. */
export function postgresCpuMs() {
  const byPid = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readStat(entry);
      if (stat.command.startsWith('postgres')) byPid.set(entry, stat.cpuMs);
    } catch {
      // Gone meanwhile.
    }
  }
  return byPid;
}

/** PostgreSQL's CPU since `before` (postgresCpuMs()), in ms, over the processes alive now; null when none could be read. */
export function postgresCpuSince(before) {
  const now = postgresCpuMs();
  if (now.size === 0) return null;
  let total = 0;
  for (const [pid, ms] of now) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** A /proc/PID/status memory field in kB: VmRSS (now) or VmHWM (peak). */
export function rssKb(pid, field = 'VmRSS') {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
}

/**
 * Starts `node script` with `env` (over PATH and LOG_LEVEL=info only: each
 * bench sets what it measures) and reads its output until `readyPattern`
 * matches. `ready` resolves with the match, or rejects if the process exits
 * first; `exited` with its exit code.
 */
export function spawnUntilReady(script, env, readyPattern) {
  const child = spawn(process.execPath, [path.join(root, script)], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ready = new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      const match = readyPattern.exec(out);
      if (match) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(match);
      }
    };
    child.stdout.on('data', onData);
    exited.then((code) => reject(new Error(`${script} exited with ${code} before it was ready:\n${out}`)));
  });
  ready.catch(() => undefined);
  return { child, exited, ready };
}

/** A Google service-account key file whose token endpoint is a bench's fake. */
export function writeKeyFile(dir, tokenUri, projectId) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const file = path.join(dir, 'service-account.json');
  writeFileSync(
    file,
    JSON.stringify({
      type: 'service_account',
      project_id: projectId,
      client_email: 'bench@bench.iam.example',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      token_uri: tokenUri,
    }),
  );
  return file;
}

/** A self-signed certificate for 127.0.0.1 and localhost in `dir`, made with openssl; whoever connects is told to trust it. */
export function makeCertificate(dir) {
  const key = path.join(dir, 'fcm-key.pem');
  const cert = path.join(dir, 'fcm-cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8'), certFile: cert };
}
