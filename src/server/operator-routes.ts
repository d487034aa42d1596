// The operator's routes (health, metrics, the admin API) in front of the
// ASMX routes. Every SOAP call passes by them, so they are found by a few
// string comparisons on the path instead of by entering an Express router
// per group, which measurably slowed the hot path.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { callOf } from '../wire/call-record';

export interface OperatorRoute {
  /** An exact path (`/healthz`) or a path prefix (`/admin/`, ending in `/`). */
  readonly path: string;
  readonly handler: RequestHandler;
}

export function operatorRoutes(routes: readonly OperatorRoute[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const path = req.path;
    for (const route of routes) {
      const prefix = route.path.endsWith('/');
      if (prefix ? path.startsWith(route.path) : path === route.path) {
        // Under a prefix, a path can name a record: the log names the prefix
        // unless the routes behind it name the route (docs/operating.md#logs).
        if (prefix) callOf(res).route = `${route.path}*`;
        void route.handler(req, res, next);
        return;
      }
    }
    next();
  };
}
