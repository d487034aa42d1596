// Every admin error is the same JSON shape, with a code a script can branch
// on and a message a person can act on:
// { "error": { "code": "...", "message": "...", "details"?: [...] } }
import type { Response } from 'express';
import { NOSNIFF } from '../wire';

export interface ErrorDetail {
  /** Where in the request: `body.fullName`, `query.limit`, `students[0].school`. */
  readonly path: string;
  readonly message: string;
}

export class AdminError extends Error {
  override readonly name = 'AdminError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: readonly ErrorDetail[],
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}

export function sendJson(
  res: Response,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const bytes = Buffer.from(body === undefined ? '' : JSON.stringify(body), 'utf8');
  res.writeHead(status, {
    ...(body === undefined
      ? {}
      : { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(bytes.length) }),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': NOSNIFF,
    ...headers,
  });
  res.end(bytes);
}

export function sendError(res: Response, error: AdminError): void {
  const body = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
  sendJson(res, error.status, body, error.headers);
}
