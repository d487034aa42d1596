// The answers the baselines replay (scripts/bench-baseline.ts): captured from
// the service (fetchAnswer), and keyed as the baselines find them: method,
// path, media type and SOAP action, so that SOAP 1.1 and 1.2 on one path,
// and two operations on one `.asmx`, each get their own bytes back.
import type { CapturedAnswer } from './bench-baseline';

/** Headers as node:http gives them (lower-case names) or as a case spells them. */
type Headers = Readonly<Record<string, string | string[] | undefined>>;

function header(headers: Headers, name: string): string {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(',') : (value ?? '');
  }
  return '';
}

export function answerKey(method: string, path: string, headers: Headers): string {
  return `${method} ${path} ${header(headers, 'content-type')} ${header(headers, 'soapaction')}`;
}

/** The service's answer to `req` on `port`, as a baseline replays it: status, media type, cache policy and bytes. */
export async function fetchAnswer(
  port: number,
  req: {
    readonly method: string;
    readonly path: string;
    readonly headers: Record<string, string>;
    readonly body?: string;
  },
): Promise<CapturedAnswer> {
  const res = await fetch(`http://127.0.0.1:${port}${req.path}`, {
    method: req.method,
    headers: req.headers,
    body: req.body,
  });
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'cache-control']) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()).toString('base64') };
}
