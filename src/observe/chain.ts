import type { RequestObserver } from './request-observer';

/** Observers run in order on every request, each before the request goes on. */
export function chainObservers(observers: readonly RequestObserver[]): RequestObserver {
  if (observers.length === 1) return observers[0];
  return (req, res, next) => {
    for (const observer of observers) observer(req, res, () => undefined);
    next();
  };
}
