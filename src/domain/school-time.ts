// A school's own clock: its IANA time zone, its quiet hours (`HH:MM-HH:MM`,
// which may wrap past midnight) and the local times message options name
// (docs/delivery.md#quiet-hours, docs/design.md#quiet-hours-and-scheduling).
// Everything goes through Intl, so daylight-saving changes follow the
// zone's rules: a local time the clocks skip is reached when they jump past
// it, and one they repeat is the first of the two that is still ahead
// (test/unit/school-time.test.ts).

export const DEFAULT_TIME_ZONE = 'UTC';
/** The longest IANA name is about 30 characters; anything far beyond is not one. */
export const MAX_TIME_ZONE_LENGTH = 64;

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * A zone's wall clock to the minute as numbers (en-US, 24-hour): the parts
 * the zone arithmetic here and the console's reading of a local time
 * (src/console/times.ts) take apart with formatToParts.
 */
export const WALL_CLOCK_PARTS = {
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
} as const satisfies Intl.DateTimeFormatOptions;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, ...WALL_CLOCK_PARTS });
    // A few hundred zones exist: the cache stays small.
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether Intl knows `name` as a time zone (an IANA name such as `Asia/Riyadh`, or `UTC`). */
export function isTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > MAX_TIME_ZONE_LENGTH) return false;
  try {
    formatterOf(name);
    return true;
  } catch {
    return false;
  }
}

// formatToParts costs about 9 µs, and resolving one message's options reads
// the clock four or five times (nextLocalTime), all within a few minutes of
// now: the readings are kept per zone and UTC minute (docs/design.md#quiet-hours-and-scheduling).
// Every zone's offset has been a whole number of minutes since 1972, so from
// then on the wall minute depends on the UTC minute alone; earlier instants
// are not kept.
const WHOLE_MINUTE_OFFSETS_SINCE = Date.UTC(1973, 0, 1);
const READINGS_PER_ZONE = 64;
const wallReadings = new Map<string, Map<number, number>>();

/** The wall clock in `timeZone` at `instant`, to the minute, as a UTC millisecond count of that wall time. */
function wallClock(instant: number, timeZone: string): number {
  if (instant < WHOLE_MINUTE_OFFSETS_SINCE) return readWallClock(instant, timeZone);
  const minute = Math.floor(instant / MINUTE);
  let zone = wallReadings.get(timeZone);
  const kept = zone?.get(minute);
  if (kept !== undefined) return kept;
  const wall = readWallClock(instant, timeZone);
  if (zone === undefined) wallReadings.set(timeZone, (zone = new Map<number, number>()));
  // The minutes around now are read again and again; a full zone starts afresh.
  else if (zone.size >= READINGS_PER_ZONE) zone.clear();
  zone.set(minute, wall);
  return wall;
}

function readWallClock(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(new Date(instant)))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute);
}

/** The zone's offset from UTC at `instant`, in milliseconds, to the minute. */
function offsetAt(instant: number, timeZone: string): number {
  const floored = Math.floor(instant / MINUTE) * MINUTE;
  return wallClock(floored, timeZone) - floored;
}

/**
 * The first instant at or after `after` at which the clock in `timeZone`
 * shows the wall time `wall` (a UTC millisecond count of that wall time), or
 * has just jumped past it. Null when neither happens within a day of it.
 */
function instantOfWall(wall: number, timeZone: string, after: number): number | null {
  // Offsets change at most a few times a year: those a day either side cover every reading of this wall time.
  const before = offsetAt(wall - DAY, timeZone);
  const later = offsetAt(wall + DAY, timeZone);
  const readings = [...new Set([wall - before, wall - later])]
    .filter((t) => wallClock(t, timeZone) === wall)
    .sort((a, b) => a - b);
  if (readings.length > 0) return readings.find((t) => t >= after) ?? null;
  // Skipped (the clocks jumped over it): the moment of the jump, found to the minute between the two readings.
  let low = Math.min(wall - before, wall - later);
  let high = Math.max(wall - before, wall - later);
  while (high - low > MINUTE) {
    const middle = Math.floor((low + high) / 2 / MINUTE) * MINUTE;
    if (wallClock(middle, timeZone) >= wall) high = middle;
    else low = middle;
  }
  return high >= after ? high : null;
}

/** A local time of day in minutes from midnight: `HH:MM`, and `24:00` for the end of the day when `endOfDay`. */
export function minutesOf(text: string, endOfDay = false): number | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (match !== null) return Number(match[1]) * 60 + Number(match[2]);
  return endOfDay && text === '24:00' ? 24 * 60 : null;
}

export interface QuietHours {
  /** Minutes from local midnight. */
  readonly start: number;
  readonly end: number;
}

export const QUIET_HOURS_SYNTAX = 'HH:MM-HH:MM (24-hour, the two times different)';

/** `22:00-06:30` (wrapping past midnight) or `12:00-13:00`; null for anything else, or a start equal to its end. */
export function parseQuietHours(text: string): QuietHours | null {
  const [from, to, ...rest] = text.split('-');
  if (rest.length > 0 || from === undefined || to === undefined) return null;
  const start = minutesOf(from);
  const end = minutesOf(to);
  if (start === null || end === null || start === end) return null;
  return { start, end };
}

/**
 * When quiet hours in force at `now` end, or null when `now` is outside
 * them. A message queued during quiet hours is held until then.
 */
export function quietHoursEnd(now: Date, timeZone: string, quiet: QuietHours): Date | null {
  const instant = now.getTime();
  const wall = wallClock(instant, timeZone);
  const minute = Math.round((wall % DAY) / MINUTE);
  const midnight = wall - minute * MINUTE;
  const wraps = quiet.start > quiet.end;
  const inside = wraps ? minute >= quiet.start || minute < quiet.end : minute >= quiet.start && minute < quiet.end;
  if (!inside) return null;
  // Past the start of quiet hours that wrap, they end tomorrow.
  const day = wraps && minute >= quiet.start ? midnight + DAY : midnight;
  const end = instantOfWall(day + quiet.end * MINUTE, timeZone, instant + 1);
  return end === null ? null : new Date(end);
}

/** The next time the clock in `timeZone` reads `minutes` (`24 * 60`: the coming midnight) after `from`. */
export function nextLocalTime(from: Date, timeZone: string, minutes: number): Date {
  const instant = from.getTime();
  const wall = wallClock(instant, timeZone);
  const midnight = wall - (wall % DAY);
  for (const day of [midnight, midnight + DAY, midnight + 2 * DAY]) {
    const found = instantOfWall(day + minutes * MINUTE, timeZone, instant + 1);
    if (found !== null) return new Date(found);
  }
  // Unreachable for a real zone: a wall time recurs every day.
  return new Date(instant + DAY);
}
