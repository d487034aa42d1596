// The metrics on a port of their own (METRICS_PORT), apart from the service's.
import type { Server } from 'node:http';
import express from 'express';
import type { Metrics } from '../metrics';
import { NOSNIFF } from '../wire/respond';
import { listen, type ConnectionLimits } from './http-server';

/** Serves `GET /metrics` on a port of its own (METRICS_PORT); resolves once bound. */
export function serveMetrics(
  metrics: Metrics,
  port: number,
  host: string,
  limits: Partial<ConnectionLimits> = {},
): Promise<Server> {
  const app = express();
  app.disable('x-powered-by');
  app.use(metrics.route);
  app.use((_req, res) => {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': NOSNIFF });
    res.end('Not Found. Metrics are at /metrics.\n');
  });
  return listen(app, port, host, limits);
}
