// The operations' shared deadline timer (src/wire/deadlines.ts).
import { performance } from 'node:perf_hooks';
import { createDeadlines } from '../../src/wire/deadlines';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the shared deadlines', () => {
  it('expires a call not finished in time, never before its limit, and not one finished in time', async () => {
    const deadlines = createDeadlines(40);
    const expiredAt: number[] = [];
    const started = performance.now();
    const slow = deadlines.start(() => expiredAt.push(performance.now() - started));
    const quick = deadlines.start(() => expiredAt.push(-1));
    expect(deadlines.pending).toBe(2);
    expect(quick.finish()).toBe(true);
    expect(quick.finish()).toBe(false);
    await sleep(20);
    expect(expiredAt).toEqual([]);
    await sleep(60);
    expect(expiredAt).toHaveLength(1);
    expect(expiredAt[0]).toBeGreaterThanOrEqual(40);
    expect(slow.finish()).toBe(false);
    expect(deadlines.pending).toBe(0);
  });

  it('expires each call at its own deadline when they started apart', async () => {
    const deadlines = createDeadlines(30);
    const order: string[] = [];
    deadlines.start(() => order.push('first'));
    await sleep(20);
    const second = deadlines.start(() => order.push('second'));
    deadlines.start(() => order.push('third'));
    await sleep(20);
    expect(order).toEqual(['first']);
    second.finish();
    await sleep(40);
    expect(order).toEqual(['first', 'third']);
    expect(deadlines.pending).toBe(0);
  });

  it('sets one timer for calls that run one after another, and holds the process open by none', () => {
    const deadlines = createDeadlines(60_000);
    const handles = () =>
      (process as unknown as { getActiveResourcesInfo(): string[] })
        .getActiveResourcesInfo()
        .filter((r) => r === 'Timeout').length;
    const before = handles();
    const timers = jest.spyOn(global, 'setTimeout');
    try {
      for (let i = 0; i < 10_000; i++) deadlines.start(() => undefined).finish();
      expect(timers).toHaveBeenCalledTimes(1);
    } finally {
      timers.mockRestore();
    }
    expect(deadlines.pending).toBe(0);
    expect(deadlines.queued).toBe(0);
    expect(handles()).toBe(before);
  });

  it('holds about the calls under way, finished ones behind a slow call dropped', () => {
    const deadlines = createDeadlines(60_000);
    const held = deadlines.start(() => undefined);
    for (let i = 0; i < 10_000; i++) deadlines.start(() => undefined).finish();
    expect(deadlines.pending).toBe(1);
    expect(deadlines.queued).toBeLessThan(1100);
    held.finish();
    for (let i = 0; i < 10_000; i++) {
      const open = deadlines.start(() => undefined);
      deadlines.start(() => undefined).finish();
      open.finish();
    }
    expect(deadlines.pending).toBe(0);
    expect(deadlines.queued).toBe(0);
  });
});
