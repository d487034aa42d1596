import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import type { EndpointModel } from '../contract';
import type { Operations } from '../operations';
import { callRecordOf, createAsmxRoutes, createDispatcher, sendText } from '../wire';
import { operatorRoutes, type OperatorRoute } from './operator-routes';

export interface AppOptions {
  readonly endpoints: readonly EndpointModel[];
  readonly operations: Operations;
  readonly logger: Logger;
  readonly bodyLimit: number;
  /** Express `trust proxy` value; false trusts nobody. */
  readonly trustProxy: boolean | number | string;
  readonly operationTimeoutMs: number;
  readonly helpPages: boolean;
  /** JSON_BODIES: the mobile apps' JSON over HTTP GET/POST (SPEC.md section 5). */
  readonly jsonBodies?: boolean;
  /** First in line for every request: request ids, metrics, the access log. */
  readonly observe?: RequestHandler;
  /** Mounted before the ASMX routes: health, metrics, the admin API. */
  readonly routes?: readonly OperatorRoute[];
}

export function createApp(options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', options.trustProxy);

  if (options.observe !== undefined) app.use(options.observe);
  if (options.routes !== undefined) app.use(operatorRoutes(options.routes));
  const dispatcher = createDispatcher(options.operations, options.logger, options.operationTimeoutMs);
  app.use(
    createAsmxRoutes({
      endpoints: options.endpoints,
      dispatcher,
      bodyLimit: options.bodyLimit,
      helpPages: options.helpPages,
      jsonBodies: options.jsonBodies,
    }),
  );

  app.use((_req: Request, res: Response) => {
    sendText(res, 404, 'Not Found.');
  });
  // Last line of defence: never an HTML page or a stack trace.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    Object.assign(callRecordOf(res), { outcome: 'server_fault', fault: 'unexpected' });
    options.logger.error({ err, method: req.method, path: req.path }, 'unhandled request error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendText(res, 500, 'Internal server error.');
  });
  return app;
}
