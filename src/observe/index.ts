export { observeRequests, type RequestObserver, type RequestObserverOptions } from './request-observer';
export { chainObservers } from './chain';
