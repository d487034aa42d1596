export { healthRoutes } from './health-routes';
export {
  checkReadiness,
  type Readiness,
  type ReadinessOptions,
  type ReadinessSource,
  type WorkerReadinessSource,
} from './readiness';
