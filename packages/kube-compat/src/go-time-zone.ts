/**
 * Go's `time.Location` arithmetic on epoch milliseconds, with the IANA database the runtime's Intl
 * carries: loading a zone by name as `time.LoadLocation` does, a zone's wall clock at an instant,
 * and `time.Date` (with its normalisation of out-of-range fields and its choice inside DST gaps and
 * overlaps). A zone is its IANA name; `undefined` is Go's `time.Local`, the process's own zone.
 */

/** The wall clock of a zone at an instant (month 1–12, weekday 0 = Sunday). */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, number>();
/** Offsets are cached per zone and quarter hour: zone transitions fall on quarter hours since 1900. */
const BUCKET_MS = 15 * 60_000;

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

let localZone: string | undefined;

/** The process's zone (Go's `time.Local`: `TZ`, else the system's). */
export function localTimeZone(): string {
  localZone ??= new Intl.DateTimeFormat().resolvedOptions().timeZone;
  return localZone;
}

const UTC_NAMES = new Set(['', 'UTC']);

let supported: { exact: Set<string>; lower: Set<string> } | undefined;
const supportedNames = () => {
  if (!supported) {
    const names = Intl.supportedValuesOf('timeZone');
    supported = { exact: new Set(names), lower: new Set(names.map((n) => n.toLowerCase())) };
  }
  return supported;
};

/**
 * `time.LoadLocation`: `""` and `"UTC"` are UTC, `"Local"` is the process's zone (undefined),
 * anything else an IANA name, spelled as the database spells it.
 * @throws Error in Go's words: `unknown time zone X`, `time: invalid location name`.
 */
export function loadGoLocation(name: string): string | undefined {
  if (UTC_NAMES.has(name)) return 'UTC';
  if (name === 'Local') return undefined;
  if (name.includes('..') || name.startsWith('/') || name.startsWith('\\'))
    throw new Error('time: invalid location name');
  const unknown = () => new Error(`unknown time zone ${name}`);
  if (!/^[A-Za-z0-9_+\-/]+$/.test(name) || /^[+-]/.test(name)) throw unknown();
  const names = supportedNames();
  // Go reads the zone file of that exact name: a case variant of a known name is not one.
  if (!names.exact.has(name) && names.lower.has(name.toLowerCase())) throw unknown();
  try {
    formatter(name);
  } catch {
    throw unknown();
  }
  return name;
}

/** The UTC offset (ms, whole seconds) of `zone` at the instant `utcMs`. */
export function zoneOffsetMs(zone: string | undefined, utcMs: number): number {
  const name = zone ?? localTimeZone();
  if (name === 'UTC') return 0;
  const key = `${name}@${Math.floor(utcMs / BUCKET_MS)}`;
  const cached = offsets.get(key);
  if (cached !== undefined) return cached;
  const at = Math.floor(utcMs / 1000) * 1000;
  const parts: Record<string, string> = {};
  for (const p of formatter(name).formatToParts(new Date(at))) parts[p.type] = p.value;
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
  const wall = new Date(0);
  wall.setUTCFullYear(year, Number(parts.month) - 1, Number(parts.day));
  wall.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second), 0);
  const offset = wall.getTime() - at;
  if (offsets.size > 50_000) offsets.clear();
  offsets.set(key, offset);
  return offset;
}

/** The wall clock of `zone` at `utcMs` (Go's `t.In(loc)` fields). */
export function wallClock(zone: string | undefined, utcMs: number): WallClock {
  const d = new Date(utcMs + zoneOffsetMs(zone, utcMs));
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
  };
}

/**
 * Go's `time.Date(year, month, day, hour, min, sec, 0, loc)` as epoch milliseconds. Fields out of
 * range carry over (month 13 is January of the next year). A wall time a DST gap skips, or one an
 * overlap repeats, is placed as Go places it: the zone offset in force at that wall time read as
 * UTC, corrected once if the result falls outside that offset's period.
 */
export function goDate(
  zone: string | undefined,
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
): number {
  const wall = new Date(0);
  wall.setUTCFullYear(year, month - 1, day);
  wall.setUTCHours(hour, minute, second, 0);
  const unix = wall.getTime();
  let offset = zoneOffsetMs(zone, unix);
  if (offset !== 0) {
    const corrected = zoneOffsetMs(zone, unix - offset);
    if (corrected !== offset) offset = corrected;
  }
  return unix - offset;
}
