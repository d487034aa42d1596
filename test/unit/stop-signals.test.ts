// src/shared/stop-signals.ts: a stop signal that comes during start-up is kept
// and handed to the shutdown once the process is ready; a second one exits.
import { catchStopSignals } from '../../src/shared/stop-signals';

describe('catchStopSignals', () => {
  let before: Record<'SIGTERM' | 'SIGINT', NodeJS.SignalsListener[]>;
  beforeEach(() => {
    before = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') };
  });
  afterEach(() => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const)
      for (const listener of process.listeners(signal))
        if (!before[signal].includes(listener)) process.off(signal, listener);
  });

  it('hands a signal received before start-up ended to the shutdown, once', () => {
    const exitNow = jest.fn();
    const onStop = catchStopSignals(exitNow);
    process.emit('SIGTERM', 'SIGTERM');
    const stop = jest.fn();
    onStop(stop);
    expect(stop).toHaveBeenCalledTimes(1);
    expect(stop).toHaveBeenCalledWith('SIGTERM');
    expect(exitNow).not.toHaveBeenCalled();
  });

  it('passes later signals straight to the shutdown', () => {
    const onStop = catchStopSignals(jest.fn());
    const stop = jest.fn();
    onStop(stop);
    expect(stop).not.toHaveBeenCalled();
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGTERM', 'SIGTERM');
    expect(stop.mock.calls).toEqual([['SIGINT'], ['SIGTERM']]);
  });

  it('exits at once on a second signal during start-up', () => {
    const exitNow = jest.fn();
    catchStopSignals(exitNow);
    process.emit('SIGTERM', 'SIGTERM');
    expect(exitNow).not.toHaveBeenCalled();
    process.emit('SIGINT', 'SIGINT');
    expect(exitNow).toHaveBeenCalledWith(1);
  });
});
