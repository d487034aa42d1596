// Bearer-token check for the admin API. Both sides are hashed before the
// constant-time comparison, so neither the content nor the length of the
// token leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../log';
import { AdminError, sendError } from './errors';

const CHALLENGE = 'Bearer realm="admin"';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** `routeOf`: the route's pattern for the log line, never the path, which names a record (router.ts). */
export function requireBearer(token: string, logger: Logger, routeOf: (req: Request) => string): RequestHandler {
  const expected = digest(token);
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization;
    const match = header === undefined ? null : /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (match === null) {
      sendError(
        res,
        new AdminError(
          401,
          'unauthorized',
          'Send the admin token as "Authorization: Bearer <ADMIN_TOKEN>".',
          undefined,
          { 'WWW-Authenticate': CHALLENGE },
        ),
      );
      return;
    }
    if (!timingSafeEqual(digest(match[1] ?? ''), expected)) {
      // Never the token itself: a near-miss may be the real one mistyped.
      logger.warn({ method: req.method, route: routeOf(req), callerAddress: req.ip }, 'admin API: wrong bearer token');
      sendError(
        res,
        new AdminError(401, 'invalid_token', 'The bearer token is not the admin token.', undefined, {
          'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"`,
        }),
      );
      return;
    }
    next();
  };
}
