// Every console answer carries the same protective headers
// (docs/console.md#security): scripts and styles from the service only (the
// overview's one script file; no inline script, no inline style), no
// framing, no referrer (ids are in the paths), no caching (the pages show
// personal data).
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Html } from '../shared/markup';

export const CONSOLE_BASE = '/console';

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export function securityHeaders(res: Response): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}

export function sendPage(res: Response, status: number, page: Html, headers: Record<string, string> = {}): void {
  res.status(status);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(`<!doctype html>\n${page.text}`);
}

/**
 * A value bound for a header that a header cannot carry: a CR or LF (which
 * would end the header), another control character, or one past ASCII. It
 * comes from the request (`/console/lang/ar?back=%0D%0A...`), so the error
 * handler answers 400 and logs nothing; Node would otherwise throw from
 * setHeader, a 500 with a stack trace in the log.
 */
export class BadHeaderValue extends Error {
  override readonly name = 'BadHeaderValue';
}

const HEADER_TEXT = /^[\x20-\x7e]*$/;
// RFC 6265's cookie-octet: no spaces, quotes, commas, semicolons or backslashes.
const COOKIE_OCTETS = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;

/** `value`, or BadHeaderValue naming `what` when a header cannot carry it. */
export function headerText(what: string, value: string, allowed = HEADER_TEXT): string {
  if (!allowed.test(value)) throw new BadHeaderValue(`${what} holds a character a header cannot carry`);
  return value;
}

/** 303 See Other: after a POST, the browser GETs the page. `to` is a path under the console. */
export function redirect(res: Response, to: string): void {
  res.status(303).setHeader('Location', headerText('the address to go to', to));
  res.end();
}

/** `Content-Disposition` of a download named `name`: printable ASCII without quotes or backslashes. */
export function attachment(name: string): string {
  return `attachment; filename="${headerText('the file name', name, /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/)}"`;
}

export interface CookieOptions {
  readonly secure: boolean;
  /** Seconds; left out: a session cookie (gone when the browser closes). */
  readonly maxAge?: number;
}

export function cookie(name: string, value: string, options: CookieOptions): string {
  return [
    `${headerText('a cookie name', name, COOKIE_OCTETS)}=${headerText('a cookie', value, COOKIE_OCTETS)}`,
    `Path=${CONSOLE_BASE}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(options.secure ? ['Secure'] : []),
    ...(options.maxAge === undefined ? [] : [`Max-Age=${options.maxAge}`]),
  ].join('; ');
}

/** The request's cookies, the first of each name; a few dozen at most are read. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (header === undefined) return cookies;
  for (const part of header.slice(0, 8192).split(';').slice(0, 50)) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}

/** Appends a Set-Cookie header to those already set. */
export function addCookie(res: Response, value: string): void {
  const current = res.getHeader('Set-Cookie');
  const list = current === undefined ? [] : Array.isArray(current) ? current : [String(current)];
  res.setHeader('Set-Cookie', [...list, value]);
}

/** The ETag of a file the console serves from memory: its content's hash. */
export const etagOf = (body: string): string => `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;

/**
 * A file the console serves from memory (its stylesheet, the overview's
 * script): revalidated by its ETag on every use, so that a new release's is
 * taken at once, and answered 304 while it is unchanged.
 */
export function sendAsset(req: Request, res: Response, asset: { body: string; etag: string; type: string }): void {
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('ETag', asset.etag);
  if (req.headers['if-none-match'] === asset.etag) {
    res.status(304).end();
    return;
  }
  res.setHeader('Content-Type', asset.type);
  res.end(asset.body);
}
