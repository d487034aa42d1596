import type { RequestObserver } from './request-observer';

/**
 * Observers run in order on every request, each handing on to the next, and
 * the last to the request itself: an observer that runs the rest in a context
 * of its own (the call's trace span) keeps that context for what follows.
 */
export function chainObservers(observers: readonly RequestObserver[]): RequestObserver {
  if (observers.length === 1) return observers[0];
  return (req, res, call, next) => {
    let index = 0;
    const step = () => {
      const observer = observers[index++];
      if (observer === undefined) next();
      else observer(req, res, call, step);
    };
    step();
  };
}
