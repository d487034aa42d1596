// The key of a captured answer (scripts/bench.ts) as the baselines find it
// (scripts/bench-baseline.ts): method, path, media type and SOAP action, so
// that SOAP 1.1 and 1.2 on one path, and two operations on one `.asmx`, each
// get their own bytes back.

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
