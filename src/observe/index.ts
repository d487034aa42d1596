export { observeRequests, type RequestObserverOptions } from './request-observer';
