export { createApp, type AppOptions } from './app';
export type { OperatorRoute } from './operator-routes';
