// Answers with a help page. The pages load nothing and run no script, and the
// Content-Security-Policy says so: even a value that slipped past escaping
// could not run or fetch anything.
import type { ServerResponse } from 'node:http';
import { CACHE_ERROR, send } from '../respond';

const POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function sendHelpPage(res: ServerResponse, page: string): void {
  res.setHeader('Content-Security-Policy', POLICY);
  send(res, 200, 'text/html; charset=utf-8', page, CACHE_ERROR);
}
