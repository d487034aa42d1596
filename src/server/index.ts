export { createApp, type App, type AppOptions } from './app';
export type { OperatorRoute } from './operator-routes';
