import type { CronField, CronSchedule, CronSpecSchedule } from './cron-parser.ts';
import { goDate, type WallClock, wallClock } from './go-time-zone.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const has = (field: CronField, value: number) => field.values.has(value);

/** robfig's dayMatches: with a `*` in either day field both must match, otherwise either. */
function dayMatches(s: CronSpecSchedule, w: WallClock): boolean {
  const domMatch = has(s.dom, w.day);
  const dowMatch = has(s.dow, w.weekday);
  return s.dom.star || s.dow.star ? domMatch && dowMatch : domMatch || dowMatch;
}

/**
 * robfig's SpecSchedule.Next: the first time after `from` whose fields match, walked as robfig
 * walks it in the schedule's zone (month, then day, hour, minute, second; each step reads the wall
 * clock again, so a DST gap skips the hours it removes and a repeated hour matches in both of its
 * passes). Undefined when nothing matches within five years (robfig's zero time).
 */
function nextSpec(s: CronSpecSchedule, from: number): number | undefined {
  const zone = s.zone;
  // Start at the next whole second.
  let t = Math.floor(from / SECOND) * SECOND + SECOND;
  let w = wallClock(zone, t);
  let added = false;
  const set = (to: number) => {
    t = to;
    w = wallClock(zone, t);
  };
  const yearLimit = w.year + 5;
  wrap: for (;;) {
    if (w.year > yearLimit) return undefined;
    while (!has(s.month, w.month)) {
      if (!added) {
        added = true;
        set(goDate(zone, w.year, w.month, 1));
      }
      set(goDate(zone, w.year, w.month + 1, w.day, w.hour, w.minute, w.second));
      if (w.month === 1) continue wrap;
    }
    while (!dayMatches(s, w)) {
      if (!added) {
        added = true;
        set(goDate(zone, w.year, w.month, w.day));
      }
      set(goDate(zone, w.year, w.month, w.day + 1, w.hour, w.minute, w.second));
      // Back to midnight where a DST change moved the clock off it.
      if (w.hour !== 0) set(w.hour > 12 ? t + (24 - w.hour) * HOUR : t - w.hour * HOUR);
      if (w.day === 1) continue wrap;
    }
    while (!has(s.hour, w.hour)) {
      if (!added) {
        added = true;
        set(goDate(zone, w.year, w.month, w.day, w.hour));
      }
      set(t + HOUR);
      if (w.hour === 0) continue wrap;
    }
    while (!has(s.minute, w.minute)) {
      if (!added) {
        added = true;
        set(Math.floor(t / MINUTE) * MINUTE);
      }
      set(t + MINUTE);
      if (w.minute === 0) continue wrap;
    }
    while (!has(s.second, w.second)) {
      if (!added) {
        added = true;
        set(Math.floor(t / SECOND) * SECOND);
      }
      set(t + SECOND);
      if (w.second === 0) continue wrap;
    }
    return t;
  }
}

/**
 * The next activation strictly after `from` (epoch ms), as robfig/cron v3's `Schedule.Next`:
 * whole seconds; `@every d` is `from` (its second) plus `d`. Undefined when a field schedule has no
 * activation within five years (e.g. `0 0 30 2 *`).
 */
export function nextCronTime(schedule: CronSchedule, from: number): number | undefined {
  if (schedule.kind === 'every') return Math.floor(from / SECOND) * SECOND + schedule.delayMs;
  return nextSpec(schedule, from);
}
