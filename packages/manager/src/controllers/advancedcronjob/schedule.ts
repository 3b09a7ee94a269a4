import type { AdvancedCronJob } from '@kruise/api';
import { type CronSchedule, loadGoLocation, nextCronTime, parseCronSchedule } from '@kruise/kube-compat';

/** More missed start times than this raise the TooManyMissedTimes warning. */
export const MANY_MISSED = 100;

/**
 * The spec robfig/cron parses for an AdvancedCronJob (upstream's formatSchedule): the schedule as
 * written when it names a zone itself, else prefixed with `TZ=<timeZone>` when that zone loads.
 */
export function scheduleSpec(acj: AdvancedCronJob): string {
  const schedule = acj.spec?.schedule ?? '';
  const zone = acj.spec?.timeZone;
  if (schedule.includes('TZ') || zone == null) return schedule;
  try {
    loadGoLocation(zone);
  } catch {
    return schedule;
  }
  return `TZ=${zone} ${schedule}`;
}

/** The AdvancedCronJob's schedule, or the parse error. */
export function parseSchedule(acj: AdvancedCronJob): CronSchedule | Error {
  try {
    return parseCronSchedule(scheduleSpec(acj));
  } catch (err) {
    return err as Error;
  }
}

/** Where a schedule stands at `now`. */
export interface ScheduleTimes {
  /** The most recent start time not yet run (at most one catch-up run), if any. */
  missed?: number;
  /** More than {@link MANY_MISSED} start times were missed. */
  tooMany: boolean;
  /** The next start time after now (none when the schedule never fires again). */
  next?: number;
}

/**
 * The native CronJob controller's mostRecentScheduleTime (Kubernetes 1.33): from the last run (or
 * creation), no earlier than `startingDeadlineSeconds` before now, the most recent start time that
 * is due, found without listing every missed one (counted from the interval between the first two).
 */
export function scheduleTimes(
  schedule: CronSchedule,
  acj: AdvancedCronJob,
  lastScheduleTime: string | undefined,
  now: number,
): ScheduleTimes {
  const next = nextCronTime(schedule, now);
  let earliest = Date.parse(lastScheduleTime ?? acj.metadata?.creationTimestamp ?? '');
  if (Number.isNaN(earliest)) earliest = now;
  const deadline = acj.spec?.startingDeadlineSeconds;
  if (deadline != null) earliest = Math.max(earliest, now - deadline * 1000);
  const t1 = nextCronTime(schedule, earliest);
  if (t1 === undefined || now < t1) return { tooMany: false, next };
  const t2 = nextCronTime(schedule, t1);
  if (t2 === undefined || now < t2) return { missed: t1, tooMany: false, next };
  const interval = Math.round((t2 - t1) / 1000);
  const count = Math.floor(Math.floor((now - t1) / 1000) / interval) + 1;
  let missed: number | undefined;
  const from = t1 + (count - 2) * interval * 1000;
  for (let t = nextCronTime(schedule, from); t !== undefined && t <= now; t = nextCronTime(schedule, t))
    missed = t;
  return { missed, tooMany: count > MANY_MISSED, next };
}
