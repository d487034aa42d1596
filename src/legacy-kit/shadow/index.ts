// Watching live calls for the move from the legacy service
// (docs/migration.md): the shadow calls to the legacy service and the request
// recording, both observers of the service's own requests.
export { createShadow, perSecondBudget, type Shadow, type ShadowKeep, type ShadowOptions } from './shadow';
export { recordRequests, type RecordRequestsOptions, type RequestRecorder } from './record-requests';
