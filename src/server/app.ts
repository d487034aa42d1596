import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { EndpointModel } from '../contract';
import type { Operations } from '../operations';
import { createAsmxRoutes, createDispatcher, sendText } from '../wire';

export interface AppOptions {
  readonly endpoints: readonly EndpointModel[];
  readonly operations: Operations;
  readonly logger: Logger;
  readonly bodyLimit: number;
  /** Express `trust proxy` value; false trusts nobody. */
  readonly trustProxy: boolean | number | string;
  readonly operationTimeoutMs: number;
  readonly helpPages: boolean;
}

export function createApp(options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', options.trustProxy);

  const dispatcher = createDispatcher(options.operations, options.logger, options.operationTimeoutMs);
  app.use(createAsmxRoutes({ endpoints: options.endpoints, dispatcher, bodyLimit: options.bodyLimit, helpPages: options.helpPages }));

  app.use((_req: Request, res: Response) => {
    sendText(res, 404, 'Not Found.');
  });
  // Last line of defence: never an HTML page or a stack trace.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    options.logger.error({ err, method: req.method, url: req.originalUrl }, 'unhandled request error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendText(res, 500, 'Internal server error.');
  });
  return app;
}
