// The operator's routes (health, metrics, the admin API) in front of the
// ASMX routes. Every SOAP call passes by them, so they are found by a few
// string comparisons on the path instead of by entering an Express router
// per group, which measurably slowed the hot path.
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export interface OperatorRoute {
  /** An exact path (`/healthz`) or a path prefix (`/admin/`, ending in `/`). */
  readonly path: string;
  readonly handler: RequestHandler;
}

export function operatorRoutes(routes: readonly OperatorRoute[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const path = req.path;
    for (const route of routes) {
      if (route.path.endsWith('/') ? path.startsWith(route.path) : path === route.path) {
        void route.handler(req, res, next);
        return;
      }
    }
    next();
  };
}
