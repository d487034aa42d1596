export { createApp, type App, type AppOptions } from './app';
export { serveMetrics } from './metrics-server';
export type { OperatorRoute } from './operator-routes';
