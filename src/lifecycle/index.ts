export { createShutdown, type Shutdown, type ShutdownOptions, type ShutdownReport } from './shutdown';
