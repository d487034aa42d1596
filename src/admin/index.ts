// The admin API under /admin/api/v1 (docs/operating.md): JSON,
// behind a bearer token, off when ADMIN_TOKEN is unset.
import { Router, type Request, type RequestHandler } from 'express';
import type { Logger } from '../log';
import type { AdminStore } from '../store';
import { callOf, NOSNIFF } from '../wire';
import { auditRoutes } from './audit-routes';
import { requireBearer } from './auth';
import { AdminError, sendError } from './errors';
import { openApiDocument } from './openapi';
import { eventRoutes } from './event-routes';
import type { QueueNotification } from '../domain/queued-notification';
import { notificationRoutes } from './notification-routes';
import { outboxRoutes } from './outbox-routes';
import { API_BASE, recordRoutes } from './record-routes';
import { routeNamer } from '../shared/route-name';
import { routeTable } from './router';

export { API_BASE } from './record-routes';
export type { QueueNotification } from '../domain/queued-notification';
/** The audit listing's filters, as the admin API checks them: the console's audit page checks its form with the same rules. */
export { AuditListQuery } from './schemas';

export interface AdminApiOptions {
  readonly store: AdminStore;
  /** null: the API answers 404 to everything, saying how to turn it on. */
  readonly token: string | null;
  readonly logger: Logger;
  /** Largest JSON body, bytes. */
  readonly bodyLimit?: number;
  /** Event subscriptions may name an http:// URL (EVENTS_ALLOW_HTTP); false unless told. */
  readonly eventsAllowHttp?: boolean;
  /** Queues a notification as SendNotificationType does, with a time to send it at; left out: no POST /notifications. */
  readonly queueNotification?: QueueNotification;
  /** The clock sendAt is checked against; the system's unless given (tests). */
  readonly now?: () => Date;
}

export function createAdminApi(options: AdminApiOptions): RequestHandler {
  const router = Router();
  const api = Router();
  router.use(API_BASE, api);
  api.use((_req, res, next) => {
    callOf(res).endpoint = 'admin';
    next();
  });
  if (options.token === null) {
    api.use((_req, res) =>
      sendError(res, new AdminError(404, 'admin_api_off', 'The admin API is off: set ADMIN_TOKEN to turn it on.')),
    );
    return router;
  }
  const routes = [
    ...recordRoutes(options.store),
    ...eventRoutes(options.store, { allowHttp: options.eventsAllowHttp ?? false, logger: options.logger }),
    ...outboxRoutes(options.store),
    ...(options.queueNotification === undefined
      ? []
      : notificationRoutes(options.store, options.queueNotification, options.now ?? (() => new Date()))),
    ...auditRoutes(options.store),
  ];
  // Every line about a request names its route by pattern, never by its path (docs/operating.md#logs).
  const name = routeNamer(API_BASE, [...routes.map((route) => route.path), '/openapi.json']);
  const routeOf = (req: Request): string => name(req.baseUrl + req.path);
  api.use((req, res, next) => {
    callOf(res).route = routeOf(req);
    next();
  });
  const document = JSON.stringify(openApiDocument(routes, API_BASE));
  // The description holds no data, and tools fetch it without credentials.
  api.get('/openapi.json', (_req, res) => {
    callOf(res).operation = 'openapi';
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': NOSNIFF,
    });
    res.end(document);
  });
  api.use(requireBearer(options.token, options.logger, routeOf));
  api.use(routeTable(routes, options.logger, options.bodyLimit ?? 1024 * 1024));
  return router;
}
