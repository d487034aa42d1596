import { timeOrderedId } from '../../src/store/outbox/time-ordered-id';

// Push notification ids (docs/benchmark.md#ingestion): version-7 UUIDs that sort by time, random after it.
describe('timeOrderedId', () => {
  const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('is a version-7 UUID with the time in its first 48 bits', () => {
    const ms = Date.parse('2026-11-28T13:20:00.123Z');
    const id = timeOrderedId(ms);
    expect(id).toMatch(V7);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(ms);
  });

  it('sorts as text by time, and differs within one millisecond', () => {
    const ms = Date.parse('2026-11-28T13:20:00Z');
    const ids = [ms - 1, ms, ms + 1, ms + 4096, ms + 2 ** 32].map(timeOrderedId);
    expect([...ids].sort()).toEqual(ids);
    const same = new Set(Array.from({ length: 1000 }, () => timeOrderedId(ms)));
    expect(same.size).toBe(1000);
  });

  it('keeps the time field to its 48 bits at the ends of the range', () => {
    expect(timeOrderedId(0)).toMatch(/^00000000-0000-7/);
    expect(timeOrderedId(2 ** 48 - 1)).toMatch(/^ffffffff-ffff-7/);
  });
});
