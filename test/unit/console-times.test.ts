// How the console writes times (src/console/times.ts, docs/console.md#times):
// a <time> in the operator's zone with the zone named and UTC in its title,
// relative times, and the datetime fields read in the operator's zone.
import { isTimeZone, timesFor, zonedToUtc } from '../../src/console/times';

const text = (value: unknown): string =>
  typeof value === 'string' ? value : (value as { text: string }).text.replace(/<[^>]+>/g, '');

describe('console times', () => {
  const at = '2026-11-27T22:11:05.250Z';

  it('names the zone, keeps UTC in the title, and writes Arabic with the digits of the rest of the page', () => {
    const riyadh = timesFor('en-GB', 'Asia/Riyadh');
    expect((riyadh.atSecond(at) as { text: string }).text).toBe(
      '<time datetime="2026-11-27T22:11:05.250Z" title="2026-11-27 22:11:05.250 UTC">28 Nov 2026, 01:11:05 GMT+3</time>',
    );
    expect(text(timesFor('en-GB', 'UTC').at(at))).toBe('27 Nov 2026, 22:11 UTC');
    expect(text(timesFor('ar-u-nu-latn', 'Asia/Riyadh').atSecond(at))).toBe('28 نوفمبر 2026، 01:11:05 غرينتش+3');
    expect(riyadh.at(null)).toBe('–');
    expect(text(riyadh.day('2026-10-05'))).toBe('5 Oct 2026');
  });

  it('says how long ago or how soon, in the largest whole unit', () => {
    const times = timesFor('en-GB', 'UTC');
    const now = Date.parse(at);
    expect(text(times.relative('2026-11-27T22:11:40.250Z', now))).toBe('in 35 sec');
    expect(text(times.relative('2026-11-27T22:08:05.250Z', now))).toBe('3 min ago');
    expect(text(times.relative('2026-11-27T20:11:05.250Z', now))).toBe('2 hr ago');
    expect(text(timesFor('ar-u-nu-latn', 'UTC').relative('2026-11-27T22:11:40.250Z', now))).toBe('خلال 35 ثانية');
  });

  it('labels chart buckets in the zone', () => {
    const times = timesFor('en-GB', 'Asia/Riyadh');
    expect(times.chartLabel('2026-11-27T22:11:00.000Z', 'minute')).toBe('01:11');
    expect(times.chartLabel('2026-11-27T22:00:00.000Z', 'hour')).toBe('28 Nov, 01');
  });

  it('reads a datetime field in the zone, across changes of the clocks', () => {
    expect(zonedToUtc('2026-03-02T11:00', 'Asia/Riyadh')).toBe('2026-03-02T08:00:00.000Z');
    expect(zonedToUtc('2026-03-02T08:01', 'UTC')).toBe('2026-03-02T08:01:00.000Z');
    // 02:30 never happens in Berlin that night: the hour after. It happens twice in October: the second.
    expect(zonedToUtc('2026-03-29T02:30', 'Europe/Berlin')).toBe('2026-03-29T01:30:00.000Z');
    expect(zonedToUtc('2026-10-25T02:30', 'Europe/Berlin')).toBe('2026-10-25T01:30:00.000Z');
    expect(zonedToUtc('2026-02-30T02:30', 'UTC')).toBeNull();
    expect(zonedToUtc('yesterday', 'UTC')).toBeNull();
  });

  it('knows the zones Node knows, and no other', () => {
    expect(isTimeZone('Asia/Riyadh')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });
});
