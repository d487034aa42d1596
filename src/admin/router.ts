// Express routing for the route table: validate the inputs with the route's
// schemas, call it, write its reply, and turn every failure into the admin
// error shape (errors.ts). Unknown paths are 404 and known paths with another
// method 405, in JSON too.
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import type { Logger } from '../log';
import { InvalidDataSetError, StoreError } from '../store';
import { callOf } from '../wire';
import { expressPath, templatePattern } from '../shared/route-name';
import { AdminError, sendError, sendJson, type ErrorDetail } from './errors';
import type { AdminRoute } from './route-table';

export function routeTable(routes: readonly AdminRoute[], logger: Logger, bodyLimit: number): RequestHandler {
  const router = Router({ strict: false });
  router.use(express.json({ limit: bodyLimit }));
  for (const entry of routes) {
    const pattern = expressPath('', entry.path);
    router[entry.method](pattern, async (req: Request, res: Response) => {
      const record = callOf(res);
      record.endpoint = 'admin';
      record.operation = entry.operationId;
      try {
        const reply = await entry.handle({
          params: validate(entry.params, req.params, 'path'),
          query: validate(entry.query, req.query, 'query'),
          body: entry.body === undefined ? undefined : validate(entry.body, req.body, 'body'),
        });
        sendJson(res, reply.status, reply.body, reply.headers);
      } catch (err) {
        sendError(res, asAdminError(err, req, `${req.baseUrl}${pattern}`, record.requestId, logger));
      }
    });
  }

  const patterns = routes.map((entry) => ({
    pattern: templatePattern(entry.path),
    method: entry.method.toUpperCase(),
  }));
  router.use((req: Request, res: Response) => {
    callOf(res).endpoint = 'admin';
    const allowed = [...new Set(patterns.filter((p) => p.pattern.test(req.path)).map((p) => p.method))];
    if (allowed.length > 0) {
      sendError(
        res,
        new AdminError(
          405,
          'method_not_allowed',
          `${req.method} is not allowed here; use ${allowed.join(' or ')}.`,
          undefined,
          { Allow: allowed.join(', ') },
        ),
      );
      return;
    }
    sendError(
      res,
      new AdminError(
        404,
        'not_found',
        `No admin route ${req.method} ${req.path}; the routes are listed in /admin/api/v1/openapi.json.`,
      ),
    );
  });
  // Express's failure to decode a path parameter, and body-parser's: bad JSON, too large, wrong charset.
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof URIError) {
      callOf(res).endpoint = 'admin';
      sendError(
        res,
        new AdminError(
          400,
          'invalid_request',
          'The request path could not be decoded: its percent-escapes are not UTF-8.',
        ),
      );
      return;
    }
    const type = (err as { type?: unknown }).type;
    if (typeof type !== 'string') {
      next(err);
      return;
    }
    if (type === 'entity.parse.failed')
      sendError(res, new AdminError(400, 'invalid_json', 'The body is not valid JSON.'));
    else if (type === 'entity.too.large')
      sendError(res, new AdminError(413, 'too_large', `The body is larger than ${bodyLimit} bytes.`));
    else sendError(res, new AdminError(400, 'invalid_body', 'The body could not be read.'));
  });
  return router;
}

function validate(schema: z.ZodType | undefined, value: unknown, where: 'path' | 'query' | 'body'): unknown {
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (parsed.success) {
    // PostgreSQL holds no NUL in a text: a value with one would fail the route's query as our
    // failure (500, an error logged) where SQLite stored or matched it (docs/design.md#a-nul-in-a-parameter).
    const at = nulAt(parsed.data, [where]);
    if (at === null) return parsed.data;
    return fail(
      new AdminError(400, 'invalid_request', `The request ${where} holds a NUL character; see details.`, [
        { path: at, message: 'must not hold a NUL character' },
      ]),
    );
  }
  const details: ErrorDetail[] = parsed.error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  const message =
    where === 'body' && value === undefined
      ? 'This route takes a JSON body: send one with Content-Type: application/json.'
      : `The request ${where === 'path' ? 'path' : where} is not valid; see details.`;
  return fail(new AdminError(400, 'invalid_request', message, details));
}

/** Where in `value` (a path as the error details write it) a string or a key holds a NUL, or null. */
function nulAt(value: unknown, path: readonly string[]): string | null {
  if (typeof value === 'string') return value.includes('\0') ? path.join('.') : null;
  if (typeof value !== 'object' || value === null || value instanceof Date) return null;
  for (const [key, item] of Object.entries(value)) {
    const at = key.includes('\0') ? [...path, key].join('.') : nulAt(item, [...path, key]);
    if (at !== null) return at;
  }
  return null;
}

function fail(error: AdminError): never {
  throw error;
}

/**
 * The route's own pattern (`/admin/api/v1/students/:id`), never the concrete
 * path, goes to the log: a path names a record, and some records' ids are
 * a student's or a device's, or a phone number (docs/operating.md#logs).
 */
function asAdminError(err: unknown, req: Request, route: string, requestId: string, logger: Logger): AdminError {
  if (err instanceof AdminError) return err;
  if (err instanceof InvalidDataSetError) {
    // The store names the record as in a data set (`students[0].school`); here it is the body.
    const path = err.path.replace(/^\w+\[\d+\]/, 'body');
    return new AdminError(422, 'invalid_record', `The record was refused: ${err.message.replace(err.path, path)}`, [
      { path, message: err.message.slice(err.path.length + 1) },
    ]);
  }
  if (err instanceof StoreError && err.kind === 'unavailable') {
    return new AdminError(503, 'store_unavailable', err.message, undefined, { 'Retry-After': '5' });
  }
  logger.error({ err, method: req.method, route, requestId }, 'admin API: request failed');
  return new AdminError(500, 'internal', 'The request failed on our side; it has been logged.');
}
