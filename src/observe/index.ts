export { observeRequests, type RequestObserver, type RequestObserverOptions } from './request-observer';
export { chainObservers } from './chain';
export { createShadow, type Shadow, type ShadowKeep, type ShadowOptions } from './shadow';
export { recordRequests, type RecordRequestsOptions, type RequestRecorder } from './record-requests';
