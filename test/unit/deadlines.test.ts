// The operation calls' time limits on one shared coarse timer
// (src/wire/deadlines.ts): the outcome of a call in time, the failure of one
// past its limit, and one timer for many calls instead of one each.
import { createDeadlines, deadlineTickMs } from '../../src/wire/deadlines';

const expired = () => new Error('too late');

describe('call deadlines', () => {
  afterEach(() => jest.restoreAllMocks());

  it('passes on the outcome of a call that ends in time, and forgets the call', async () => {
    const deadlines = createDeadlines(1000, expired);
    await expect(deadlines.within(Promise.resolve('answer'))).resolves.toBe('answer');
    await expect(deadlines.within(Promise.reject(new Error('its own failure')))).rejects.toThrow('its own failure');
    expect(deadlines.pending).toBe(0);
  });

  it('fails a call that runs past its limit, no more than two ticks after it', async () => {
    const deadlines = createDeadlines(60, expired);
    const started = performance.now();
    await expect(deadlines.within(new Promise(() => undefined))).rejects.toThrow('too late');
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(60);
    // Two ticks (6 ms) late at most, with room for a busy machine’s timers.
    expect(took).toBeLessThan(60 + 2 * deadlineTickMs(60) + 200);
    expect(deadlines.pending).toBe(0);
  });

  it('fails only the calls past their limit, in the order they started', async () => {
    const deadlines = createDeadlines(40, expired);
    const failed: string[] = [];
    const hang = (name: string) =>
      deadlines.within(new Promise(() => undefined)).catch(() => {
        failed.push(name);
      });
    const first = hang('first');
    await new Promise((resolve) => setTimeout(resolve, 20));
    let release = (_: string) => undefined as void;
    const quick = deadlines.within(new Promise<string>((resolve) => (release = resolve)));
    const second = hang('second');
    await first;
    expect(failed).toEqual(['first']);
    release('in time');
    await expect(quick).resolves.toBe('in time');
    await second;
    expect(failed).toEqual(['first', 'second']);
  });

  it('keeps one timer for a thousand calls, and none once they are done', async () => {
    const intervals = jest.spyOn(global, 'setInterval');
    const timeouts = jest.spyOn(global, 'setTimeout');
    const cleared = jest.spyOn(global, 'clearInterval');
    const deadlines = createDeadlines(30, expired);
    const calls = Array.from({ length: 1000 }, (_, i) => deadlines.within(Promise.resolve(i)));
    await Promise.all(calls);
    expect(intervals).toHaveBeenCalledTimes(1);
    expect(timeouts).not.toHaveBeenCalled();
    // The next check finds nothing pending and stops the timer.
    await new Promise((resolve) => setTimeout(resolve, 3 * deadlineTickMs(30)));
    expect(cleared).toHaveBeenCalledTimes(1);
  });

  it('checks twenty times within a limit, at most every 100 ms', () => {
    expect(deadlineTickMs(30_000)).toBe(100);
    expect(deadlineTickMs(1000)).toBe(50);
    expect(deadlineTickMs(10)).toBe(1);
  });
});
