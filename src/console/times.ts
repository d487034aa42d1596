// How every console page writes a time (docs/console.md#times): one
// `<time datetime="…">` element, shown in the operator's time zone with the
// zone named, the exact UTC time in its title; to the minute or to the
// second; and "3 min ago" / "in 35 sec" where people think that way. One
// module, so that one page never shows two formats.
import { WALL_CLOCK_PARTS } from '../domain/school-time';
import { html, type Html } from '../shared/markup';

/** The zone a console shows times in when nothing else is chosen (CONSOLE_TIME_ZONE's default). */
export const DEFAULT_TIME_ZONE = 'UTC';

// Whether a zone is one this Node knows: the schools' check, which keeps each known zone's formatter, so
// that reading an account's zone on every page builds none.
export { isTimeZone } from '../domain/school-time';

/** Every zone an operator may choose, UTC first. */
export function timeZones(): readonly string[] {
  return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
}

export interface Times {
  /** The zone the times are shown in. */
  readonly zone: string;
  /** A `<time>` to the minute, with its zone; a dash for null. */
  at(iso: string | null): Html | string;
  /** A `<time>` to the second (attempts, messages), with its zone; a dash for null. */
  atSecond(iso: string | null): Html | string;
  /** A `<time>` holding how long ago or how soon (`3 min ago`, `in 35 sec`), the time itself in its title. */
  relative(iso: string | null, now: number): Html | string;
  /** A calendar day (`2026-03-02`, a stored date with no time), as a `<time>`. */
  day(date: string | null): Html | string;
  /** A chart's short label for the bucket starting at `iso`: the hour and minute, or the day and hour. */
  chartLabel(iso: string, unit: 'minute' | 'hour' | 'day'): string;
}

const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** The exact UTC time, for the title: `2026-03-02 08:00:01.500 UTC`. */
const utcTitle = (at: Date): string => at.toISOString().replace('T', ' ').replace('Z', ' UTC');

export function timesFor(locale: string, zone: string): Times {
  const common: Intl.DateTimeFormatOptions = {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: zone,
    timeZoneName: 'short',
  };
  const minutes = new Intl.DateTimeFormat(locale, common);
  const seconds = new Intl.DateTimeFormat(locale, { ...common, second: '2-digit' });
  const days = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
  const chartMinute = new Intl.DateTimeFormat(locale, {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: zone,
  });
  // A day's bar counts a UTC day (the store groups by the date of its UTC times), so it is named by that date.
  const chartDay = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' });
  const chartHour = new Intl.DateTimeFormat(locale, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    hourCycle: 'h23',
    timeZone: zone,
  });
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'short' });
  const tag = (iso: string | null, format: (at: Date) => string): Html | string => {
    if (iso === null) return '–';
    const at = new Date(iso);
    if (Number.isNaN(at.getTime())) return iso;
    return html`<time datetime="${at.toISOString()}" title="${utcTitle(at)}">${format(at)}</time>`;
  };
  return {
    zone,
    at: (iso) => tag(iso, (at) => minutes.format(at)),
    atSecond: (iso) => tag(iso, (at) => seconds.format(at)),
    relative: (iso, now) =>
      tag(iso, (at) => {
        const ms = at.getTime() - now;
        const [unit, size] = UNITS.find(([, length]) => Math.abs(ms) >= length) ?? ['second', 1000];
        return relative.format(Math.trunc(ms / size), unit);
      }),
    day: (date) => {
      if (date === null) return '–';
      const at = new Date(`${date.slice(0, 10)}T00:00:00.000Z`);
      if (Number.isNaN(at.getTime())) return date;
      return html`<time datetime="${date.slice(0, 10)}">${days.format(at)}</time>`;
    },
    chartLabel: (iso, unit) => {
      const at = new Date(iso);
      if (Number.isNaN(at.getTime())) return iso;
      return (unit === 'minute' ? chartMinute : unit === 'hour' ? chartHour : chartDay).format(at);
    },
  };
}

/**
 * A wall-clock time in `zone` (`2026-03-02T11:00`, as a datetime-local field
 * gives it) as the UTC instant it names; null when it is not one. In a
 * change of the clocks an hour that happens twice is read as its second, and
 * one that never happens as the hour after.
 */
export function zonedToUtc(local: string, zone: string): string | null {
  const match = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d))?$/.exec(local);
  if (match === null) return null;
  const [y, mo, d, h, mi, se] = match.slice(1).map((part) => (part === undefined ? 0 : Number(part)));
  const wall = Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, se ?? 0);
  if (Number.isNaN(wall) || new Date(wall).toISOString().slice(0, 16) !== local.slice(0, 16)) return null;
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, ...WALL_CLOCK_PARTS, second: 'numeric' });
  // The zone's offset at an instant: its wall clock then, less the instant.
  const offsetAt = (instant: number): number => {
    const p = Object.fromEntries(parts.formatToParts(new Date(instant)).map((part) => [part.type, part.value]));
    return (
      Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second)) -
      instant
    );
  };
  const first = wall - offsetAt(wall);
  return new Date(wall - offsetAt(first)).toISOString();
}
