import { SERVICE_VERSION } from '../shared/version';
import { Router, type RequestHandler, type Response } from 'express';
import { callOf, NOSNIFF } from '../wire';
import { checkReadiness, type ReadinessOptions } from './readiness';

// application/health+json, after the (expired) IETF health-check draft that
// several load balancers and dashboards read.
const CONTENT_TYPE = 'application/health+json; charset=utf-8';

function answer(res: Response, status: number, body: unknown): void {
  res.writeHead(status, {
    'Content-Type': CONTENT_TYPE,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': NOSNIFF,
  });
  res.end(JSON.stringify(body));
}

/**
 * `/healthz`: the process is up and serving (never looks at the store, or a
 * slow database would get every process restarted). `/readyz`: see readiness.ts.
 */
export function healthRoutes(options: ReadinessOptions): RequestHandler {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    Object.assign(callOf(res), { endpoint: 'health', operation: 'healthz' });
    answer(res, 200, { status: 'pass', version: SERVICE_VERSION });
  });
  router.get('/readyz', async (_req, res) => {
    Object.assign(callOf(res), { endpoint: 'health', operation: 'readyz' });
    const readiness = await checkReadiness(options);
    answer(res, readiness.status === 'pass' ? 200 : 503, readiness);
  });
  return router;
}
