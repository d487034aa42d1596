import { completionFor, retryDelayMs, type RetryPolicy } from '../../src/delivery/retry-policy';
import { failure, sent } from '../../src/delivery/provider';

const POLICY: RetryPolicy = { maxAttempts: 10, baseDelayMs: 10_000, maxDelayMs: 3_600_000 };
const NOW = new Date('2030-01-01T00:00:00.000Z');
const plain = { rateLimited: false, retryAfterMs: null };

describe('retry policy', () => {
  it('doubles from the base delay per attempt, plus up to as much again at random, capped', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(plain, attempt, POLICY, () => 0))).toEqual([
      10_000, 20_000, 40_000, 80_000,
    ]);
    expect(retryDelayMs(plain, 1, POLICY, () => 0.999)).toBe(19_990);
    expect(retryDelayMs(plain, 12, POLICY, () => 0.5)).toBe(3_600_000);
  });

  it('waits at least a minute after being rate limited, and never less than Retry-After', () => {
    expect(retryDelayMs({ rateLimited: true, retryAfterMs: null }, 1, POLICY, () => 0)).toBe(60_000);
    expect(retryDelayMs({ rateLimited: true, retryAfterMs: null }, 2, POLICY, () => 0)).toBe(120_000);
    expect(retryDelayMs({ rateLimited: false, retryAfterMs: 300_000 }, 1, POLICY, () => 0)).toBe(300_000);
    expect(retryDelayMs({ rateLimited: false, retryAfterMs: 1_000 }, 1, POLICY, () => 0)).toBe(10_000);
  });

  it('spreads messages that failed together', () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelayMs(plain, 3, POLICY, Math.random)));
    expect(delays.size).toBeGreaterThan(40);
    for (const delay of delays) expect(delay).toBeGreaterThanOrEqual(40_000);
  });

  it('turns a result into what the outbox records', () => {
    expect(completionFor(sent('projects/p/messages/9'), 1, POLICY, NOW, () => 0)).toEqual({
      status: 'sent',
      providerMessageId: 'projects/p/messages/9',
    });
    expect(completionFor(failure('UNREGISTERED', 'gone', { tokenInvalid: true }), 1, POLICY, NOW, () => 0)).toEqual({
      status: 'dead',
      error: 'UNREGISTERED: gone',
    });
    expect(completionFor(failure('http_503', 'busy', { retryable: true }), 2, POLICY, NOW, () => 0)).toEqual({
      status: 'failed',
      retryAt: '2030-01-01T00:00:20.000Z',
      error: 'http_503: busy',
    });
    expect(completionFor(failure('http_503', 'busy', { retryable: true }), 10, POLICY, NOW, () => 0)).toEqual({
      status: 'dead',
      error: 'gave up after 10 attempts; last: http_503: busy',
    });
  });
});
