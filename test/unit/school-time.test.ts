// A school's clock (src/domain/school-time.ts): quiet hours in the school's
// zone, wrapping past midnight, across daylight-saving changes.
import {
  isTimeZone,
  nextLocalTime,
  parseQuietHours,
  quietHoursEnd,
  type QuietHours,
} from '../../src/domain/school-time';

const at = (iso: string) => new Date(iso);
const end = (now: string, zone: string, quiet: string) =>
  quietHoursEnd(at(now), zone, parseQuietHours(quiet) as QuietHours)?.toISOString() ?? null;

describe('time zones', () => {
  it('takes IANA names and UTC, and refuses anything else', () => {
    expect(isTimeZone('Europe/London')).toBe(true);
    expect(isTimeZone('Asia/Riyadh')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone('Europe/London'.repeat(10))).toBe(false);
  });
});

describe('quiet hours syntax', () => {
  it('reads HH:MM-HH:MM, wrapping or not', () => {
    expect(parseQuietHours('22:00-06:30')).toEqual({ start: 22 * 60, end: 6 * 60 + 30 });
    expect(parseQuietHours('12:00-13:00')).toEqual({ start: 720, end: 780 });
  });

  it.each(['', '22:00', '22:00-', '24:00-06:00', '22:00-06:60', '7:00-08:00', '08:00-08:00', '22:00-06:00-07:00'])(
    'refuses %p',
    (text) => {
      expect(parseQuietHours(text)).toBeNull();
    },
  );
});

describe('when quiet hours end', () => {
  it('is null outside them', () => {
    expect(end('2026-06-10T12:00:00Z', 'UTC', '22:00-06:30')).toBeNull();
    expect(end('2026-06-10T06:30:00Z', 'UTC', '22:00-06:30')).toBeNull();
    expect(end('2026-06-10T21:59:59Z', 'UTC', '22:00-06:30')).toBeNull();
  });

  it('is the next morning after the start of hours that wrap, and this morning after midnight', () => {
    expect(end('2026-06-10T22:00:00Z', 'UTC', '22:00-06:30')).toBe('2026-06-11T06:30:00.000Z');
    expect(end('2026-06-11T03:00:00Z', 'UTC', '22:00-06:30')).toBe('2026-06-11T06:30:00.000Z');
  });

  it('is the same day for hours that do not wrap', () => {
    expect(end('2026-06-10T12:15:00Z', 'UTC', '12:00-13:00')).toBe('2026-06-10T13:00:00.000Z');
  });

  it('follows the school zone, not UTC', () => {
    // Riyadh is UTC+3 all year: 23:00 there is 20:00 UTC.
    expect(end('2026-06-10T20:00:00Z', 'Asia/Riyadh', '22:00-06:30')).toBe('2026-06-11T03:30:00.000Z');
    expect(end('2026-06-10T18:59:00Z', 'Asia/Riyadh', '22:00-06:30')).toBeNull();
  });

  it('ends at 07:00 BST on the morning the clocks go forward in London (end of March)', () => {
    // 29 March 2026: 01:00 GMT becomes 02:00 BST. The night is an hour shorter.
    expect(end('2026-03-28T23:30:00Z', 'Europe/London', '22:00-07:00')).toBe('2026-03-29T06:00:00.000Z');
    // The evening before, 22:30 GMT: still GMT, and the end is in BST.
    expect(end('2026-03-28T22:30:00Z', 'Europe/London', '22:00-07:00')).toBe('2026-03-29T06:00:00.000Z');
  });

  it('ends at 07:00 GMT on the morning the clocks go back in London (end of October)', () => {
    // 25 October 2026: 02:00 BST becomes 01:00 GMT. The night is an hour longer.
    expect(end('2026-10-24T21:30:00Z', 'Europe/London', '22:00-07:00')).toBe('2026-10-25T07:00:00.000Z');
  });

  it('ends when the clocks jump past an end they skip', () => {
    // 29 March 2026 in London: 01:30 never happens; quiet hours end at the jump, 01:00 GMT = 02:00 BST.
    expect(end('2026-03-29T00:10:00Z', 'Europe/London', '22:00-01:30')).toBe('2026-03-29T01:00:00.000Z');
    // New York, 8 March 2026: 02:00 EST becomes 03:00 EDT; 02:30 is skipped.
    expect(end('2026-03-08T05:00:00Z', 'America/New_York', '22:00-02:30')).toBe('2026-03-08T07:00:00.000Z');
  });

  it('takes the reading of a repeated end that is still ahead', () => {
    // 25 October 2026 in London, 01:00-02:00 happens twice (BST, then GMT).
    // Before the first 01:30: the first one.
    expect(end('2026-10-24T23:30:00Z', 'Europe/London', '22:00-01:30')).toBe('2026-10-25T00:30:00.000Z');
    // 01:15 GMT, the second pass: quiet again by the clock, until the second 01:30.
    expect(end('2026-10-25T01:15:00Z', 'Europe/London', '22:00-01:30')).toBe('2026-10-25T01:30:00.000Z');
  });
});

describe('the next local time', () => {
  it('is later today, or tomorrow once passed', () => {
    expect(nextLocalTime(at('2026-06-10T09:00:00Z'), 'Asia/Riyadh', 16 * 60).toISOString()).toBe(
      '2026-06-10T13:00:00.000Z',
    );
    expect(nextLocalTime(at('2026-06-10T14:00:00Z'), 'Asia/Riyadh', 16 * 60).toISOString()).toBe(
      '2026-06-11T13:00:00.000Z',
    );
  });

  it('reads 24:00 as the coming midnight, across a change of offset', () => {
    expect(nextLocalTime(at('2026-03-29T10:00:00Z'), 'Europe/London', 24 * 60).toISOString()).toBe(
      '2026-03-29T23:00:00.000Z',
    );
    expect(nextLocalTime(at('2026-10-25T10:00:00Z'), 'Europe/London', 24 * 60).toISOString()).toBe(
      '2026-10-26T00:00:00.000Z',
    );
  });
});
