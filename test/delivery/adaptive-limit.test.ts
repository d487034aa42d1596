// The adaptive limit of sends in flight (src/delivery/concurrency), driven by
// a clock the test moves: no real time passes.
import { AdaptiveLimit } from '../../src/delivery/concurrency';

function limitWithClock(options: { floor?: number; ceiling?: number; initial?: number } = {}) {
  let now = 0;
  const limit = new AdaptiveLimit({
    floor: options.floor ?? 4,
    ceiling: options.ceiling ?? 512,
    initial: options.initial,
    now: () => now,
  });
  return {
    limit,
    advance: (ms: number) => {
      now += ms;
    },
    /** One round trip with every slot in use, each answered after `latencyMs`. */
    roundTrip(latencyMs: number, signal: 'answered' | 'overloaded' = 'answered') {
      const sends = limit.limit;
      for (let i = 0; i < sends; i++) limit.acquire();
      now += latencyMs;
      for (let i = 0; i < sends; i++) {
        limit.observe(latencyMs, signal);
        limit.release();
      }
    },
  };
}

describe('adaptive concurrency limit', () => {
  it('starts at 32 and doubles every round trip while the provider answers at its usual speed, up to the ceiling', () => {
    const t = limitWithClock({ ceiling: 512 });
    expect(t.limit.limit).toBe(32);
    const seen: number[] = [32];
    for (let i = 0; i < 8; i++) {
      t.roundTrip(60);
      seen.push(t.limit.limit);
    }
    // Each answer while the limit is in use adds one.
    expect(seen.slice(0, 5)).toEqual([32, 64, 128, 256, 512]);
    expect(seen[8]).toBe(512);
    t.roundTrip(60);
    expect(t.limit.limit).toBe(512);
  });

  it("grows no further than 10,000 sends a second need at the fastest latency seen (Little's law)", () => {
    const near = limitWithClock({ ceiling: 512 });
    for (let i = 0; i < 10; i++) near.roundTrip(2);
    // 2 ms: 20 would do; the starting 32 stays.
    expect(near.limit.limit).toBe(32);
    const far = limitWithClock({ ceiling: 512 });
    for (let i = 0; i < 10; i++) far.roundTrip(20);
    expect(far.limit.limit).toBe(200);
  });

  it('does not grow while the limit is not in use', () => {
    const t = limitWithClock();
    for (let i = 0; i < 100; i++) {
      t.limit.acquire();
      t.advance(50);
      t.limit.observe(50, 'answered');
      t.limit.release();
    }
    expect(t.limit.limit).toBe(32);
  });

  it('halves on 429/503 at most once per round trip, never below the floor', () => {
    const t = limitWithClock({ floor: 4, initial: 256 });
    t.roundTrip(50);
    const before = t.limit.limit;
    // A whole round trip of overload answers: one cut, not one per answer.
    t.roundTrip(50, 'overloaded');
    expect(t.limit.limit).toBe(Math.floor(before / 2));
    for (let i = 0; i < 20; i++) t.roundTrip(50, 'overloaded');
    expect(t.limit.limit).toBe(4);
  });

  it('comes back up once the provider recovers', () => {
    const t = limitWithClock({ initial: 256 });
    for (let i = 0; i < 10; i++) t.roundTrip(50, 'overloaded');
    expect(t.limit.limit).toBe(4);
    for (let i = 0; i < 20; i++) t.roundTrip(50);
    expect(t.limit.limit).toBeGreaterThan(256);
  });

  it('trims itself when answers slow down well beyond the fastest seen (the provider is queueing)', () => {
    const t = limitWithClock({ initial: 200 });
    for (let i = 0; i < 3; i++) t.roundTrip(50);
    const fast = t.limit.limit;
    for (let i = 0; i < 20; i++) t.roundTrip(400);
    expect(t.limit.limit).toBeLessThan(fast / 2);
  });

  it('a provider that became slower for good is the new normal after the baseline window', () => {
    const t = limitWithClock({ initial: 64, ceiling: 128 });
    t.roundTrip(10);
    for (let i = 0; i < 100; i++) t.roundTrip(300);
    expect(t.limit.limit).toBeLessThan(16);
    for (let i = 0; i < 300; i++) t.roundTrip(300);
    // Once a whole baseline window (30 s) has seen only 300 ms answers, they are the norm: the limit grows again.
    expect(t.limit.limit).toBe(128);
  });

  it('keeps floor and ceiling, and counts what is in flight', () => {
    const t = limitWithClock({ floor: 2, ceiling: 3, initial: 100 });
    expect(t.limit.limit).toBe(3);
    t.limit.acquire();
    t.limit.acquire();
    expect(t.limit.inFlight).toBe(2);
    expect(t.limit.available()).toBe(1);
    t.limit.acquire();
    t.limit.acquire();
    expect(t.limit.available()).toBe(0);
    expect(() => new AdaptiveLimit({ floor: 5, ceiling: 4 })).toThrow(RangeError);
  });
});
