import { parseGoDuration } from './go-duration.ts';
import { loadGoLocation } from './go-time-zone.ts';

/**
 * A cron schedule as robfig/cron v3's `ParseStandard` reads one (the parser Kubernetes' CronJob and
 * Kruise's AdvancedCronJob use): five fields `minute hour day-of-month month day-of-week`, or a
 * descriptor (`@yearly` `@annually` `@monthly` `@weekly` `@daily` `@midnight` `@hourly`,
 * `@every <Go duration>`), optionally after `TZ=<zone> ` or `CRON_TZ=<zone> `. Errors are robfig's
 * words, so a webhook's denial reads as upstream's.
 */

/** One field's allowed values, and whether it was written as `*` or `?` (robfig's star bit). */
export interface CronField {
  values: ReadonlySet<number>;
  star: boolean;
}

/** A field schedule (robfig's SpecSchedule): seconds are always 0 in the standard form. */
export interface CronSpecSchedule {
  kind: 'spec';
  second: CronField;
  minute: CronField;
  hour: CronField;
  dom: CronField;
  month: CronField;
  dow: CronField;
  /** The zone the fields are read in; undefined is the process's zone. */
  zone: string | undefined;
}

/** `@every d` (robfig's ConstantDelaySchedule): whole seconds, at least one. */
export interface CronEverySchedule {
  kind: 'every';
  delayMs: number;
}

/** What {@link parseCronSchedule} returns. */
export type CronSchedule = CronSpecSchedule | CronEverySchedule;

interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: {
    jan: 1,
    feb: 2,
    mar: 3,
    apr: 4,
    may: 5,
    jun: 6,
    jul: 7,
    aug: 8,
    sep: 9,
    oct: 10,
    nov: 11,
    dec: 12,
  },
};
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

const MAX_INT64 = 2n ** 63n - 1n;

/** Go's `strconv.Atoi`, with its error text. */
function atoi(expr: string): number {
  const quoted = JSON.stringify(expr);
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new Error(`strconv.Atoi: parsing ${quoted}: invalid syntax`);
  const n = BigInt(expr);
  if (n > MAX_INT64 || n < -MAX_INT64 - 1n)
    throw new Error(`strconv.Atoi: parsing ${quoted}: value out of range`);
  return Number(n);
}

/** robfig's mustParseInt: a non-negative integer. */
function mustParseInt(expr: string): number {
  let num: number;
  try {
    num = atoi(expr);
  } catch (err) {
    throw new Error(`failed to parse int from ${expr}: ${(err as Error).message}`);
  }
  if (num < 0) throw new Error(`negative number (${num}) not allowed: ${expr}`);
  return num;
}

function parseIntOrName(expr: string, names: Bounds['names']): number {
  const named = names?.[expr.toLowerCase()];
  return named ?? mustParseInt(expr);
}

/** robfig's getRange: `*`, `?`, `n`, `a-b`, each with an optional `/step`. */
function getRange(expr: string, r: Bounds, into: Set<number>): boolean {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    // "N/step" means "N-max/step".
    if (singleDigit) end = r.max;
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) throw new Error(`too many slashes: ${expr}`);
  if (start < r.min) throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  for (let i = start; i <= end; i += step) into.add(i);
  return star;
}

/** robfig's getField: a comma-separated list of ranges (empty items skipped). */
function getField(field: string, r: Bounds): CronField {
  const values = new Set<number>();
  let star = false;
  for (const expr of field.split(',').filter(Boolean)) if (getRange(expr, r, values)) star = true;
  return { values, star };
}

const only = (v: number): CronField => ({ values: new Set([v]), star: false });
const all = (r: Bounds): CronField => {
  const values = new Set<number>();
  for (let i = r.min; i <= r.max; i++) values.add(i);
  return { values, star: true };
};

function spec(
  zone: string | undefined,
  fields: Omit<CronSpecSchedule, 'kind' | 'zone' | 'second'>,
): CronSpecSchedule {
  return { kind: 'spec', second: only(0), ...fields, zone };
}

/** robfig's parseDescriptor. */
function parseDescriptor(descriptor: string, zone: string | undefined): CronSchedule {
  const midnight = { minute: only(0), hour: only(0) };
  switch (descriptor) {
    case '@yearly':
    case '@annually':
      return spec(zone, { ...midnight, dom: only(1), month: only(1), dow: all(DOW) });
    case '@monthly':
      return spec(zone, { ...midnight, dom: only(1), month: all(MONTHS), dow: all(DOW) });
    case '@weekly':
      return spec(zone, { ...midnight, dom: all(DOM), month: all(MONTHS), dow: only(0) });
    case '@daily':
    case '@midnight':
      return spec(zone, { ...midnight, dom: all(DOM), month: all(MONTHS), dow: all(DOW) });
    case '@hourly':
      return spec(zone, {
        minute: only(0),
        hour: all(HOURS),
        dom: all(DOM),
        month: all(MONTHS),
        dow: all(DOW),
      });
  }
  const every = '@every ';
  if (descriptor.startsWith(every)) {
    let ns: bigint;
    try {
      ns = parseGoDuration(descriptor.slice(every.length));
    } catch (err) {
      throw new Error(`failed to parse duration ${descriptor}: ${(err as Error).message}`);
    }
    const seconds = ns < 1_000_000_000n ? 1n : ns / 1_000_000_000n;
    return { kind: 'every', delayMs: Number(seconds) * 1000 };
  }
  throw new Error(`unrecognized descriptor: ${descriptor}`);
}

/** Thrown for a zone prefix Go's parser panics on (upstream's webhook reports it as `invalid cron schedule: …`). */
export class CronPanic extends Error {}

/** The zone of a `TZ=`/`CRON_TZ=` prefix and the spec after it. */
function zonePrefix(text: string): { zone: string | undefined; rest: string } {
  const i = text.indexOf(' ');
  const eq = text.indexOf('=');
  // Go slices `spec[eq+1:i]`, which panics when no space follows the prefix.
  if (i === -1) throw new CronPanic('runtime error: slice bounds out of range [:-1]');
  const name = text.slice(eq + 1, i);
  let zone: string | undefined;
  try {
    zone = loadGoLocation(name);
  } catch (err) {
    throw new Error(`provided bad location ${name}: ${(err as Error).message}`);
  }
  return { zone, rest: text.slice(i).trim() };
}

/**
 * Parses a standard cron spec as robfig/cron v3's `ParseStandard`.
 * @throws Error with robfig's message (`expected exactly 5 fields, found 1: [foo]`,
 * `end of range (60) above maximum (59): 60`, `provided bad location X: unknown time zone X`, …);
 * a {@link CronPanic} where robfig panics.
 */
export function parseCronSchedule(text: string): CronSchedule {
  if (text.length === 0) throw new Error('empty spec string');
  let zone: string | undefined;
  let rest = text;
  if (text.startsWith('TZ=') || text.startsWith('CRON_TZ=')) {
    ({ zone, rest } = zonePrefix(text));
  }
  if (rest.startsWith('@')) return parseDescriptor(rest, zone);
  const fields = rest.split(/\s+/).filter(Boolean);
  if (fields.length !== 5)
    throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute, hour, dom, month, dow] = fields as [string, string, string, string, string];
  return {
    kind: 'spec',
    second: only(0),
    minute: getField(minute, MINUTES),
    hour: getField(hour, HOURS),
    dom: getField(dom, DOM),
    month: getField(month, MONTHS),
    dow: getField(dow, DOW),
    zone,
  };
}
