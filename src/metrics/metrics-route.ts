import { Router, type RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import { callOf } from '../wire/call-record';
import { NOSNIFF } from '../wire/respond';

/** `GET /metrics` in the Prometheus text format. */
export function metricsRoute(registry: Registry): RequestHandler {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    Object.assign(callOf(res), { endpoint: 'metrics', operation: 'metrics' });
    try {
      const text = await registry.metrics();
      res.writeHead(200, {
        'Content-Type': registry.contentType,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': NOSNIFF,
      });
      res.end(text);
    } catch {
      res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': NOSNIFF });
      res.end('The metrics could not be collected.\n');
    }
  });
  return router;
}
