// What npm run bench (scripts/bench.mjs) and npm run soak (scripts/soak.mjs)
// share: the repository root, the Node flags `npm start` gives the service,
// the request each binding sends, a child process started until it listens,
// and its memory from /proc.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The service runs with the Node flags `npm start` gives it (package.json).
export const NODE_FLAGS = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
  .scripts.start.split(/\s+/)
  .filter((arg) => arg.startsWith('--'));
export const NS = 'http://tempuri.org/';
export const BINDINGS = ['SOAP 1.1', 'SOAP 1.2', 'HTTP GET', 'HTTP POST'];

export function envelope(version, op, params) {
  const env = version === '1.1' ? 'http://schemas.xmlsoap.org/soap/envelope/' : 'http://www.w3.org/2003/05/soap-envelope';
  const inner = Object.entries(params).map(([k, v]) => `<${k}>${v}</${k}>`).join('');
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${env}"><soap:Body><${op} xmlns="${NS}">${inner}</${op}></soap:Body></soap:Envelope>`;
}

/** One call over one binding, as real clients send it; `soapParams` where SOAP's values differ (a char's code). */
export function request(endpoint, op, params, binding, soapParams = params) {
  if (binding === 'SOAP 1.1') return { method: 'POST', path: `/${endpoint}.asmx`, headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${NS}${op}"` }, body: envelope('1.1', op, soapParams) };
  if (binding === 'SOAP 1.2') return { method: 'POST', path: `/${endpoint}.asmx`, headers: { 'content-type': `application/soap+xml; charset=utf-8; action="${NS}${op}"` }, body: envelope('1.2', op, soapParams) };
  if (binding === 'HTTP GET') return { method: 'GET', path: `/${endpoint}.asmx/${op}?${new URLSearchParams(params)}`, headers: {} };
  return { method: 'POST', path: `/${endpoint}.asmx/${op}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params).toString() };
}

/**
 * Starts `node NODE_FLAGS script` with `env` over `baseEnv` and resolves with
 * the port from its `listening` line (the service's JSON log, or the
 * baseline's `listening PORT`). Its output is read only until then.
 */
export function startChild(script, env, baseEnv = process.env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, script], { env: { ...baseEnv, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
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

/** A /proc/PID/status memory field in kB: VmRSS (now) or VmHWM (peak). */
export function rssKb(pid, field = 'VmRSS') {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
}
