import type { AdvancedCronJob } from '@kruise/api';
import { parseCronSchedule } from '@kruise/kube-compat';
import type { KubeObject } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { runsBeyondLimit } from '../../src/controllers/advancedcronjob/history.ts';
import { localRfc3339 } from '../../src/controllers/advancedcronjob/run-object.ts';
import { scheduleSpec, scheduleTimes } from '../../src/controllers/advancedcronjob/schedule.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const acj = (
  spec: Partial<NonNullable<AdvancedCronJob['spec']>>,
  created = '2026-03-02T08:00:00Z',
): AdvancedCronJob => ({
  metadata: { name: 'x', namespace: 'default', creationTimestamp: created },
  spec: { schedule: '0 * * * *', template: {}, ...spec },
});
const times = (a: AdvancedCronJob, last: string | undefined, now: string) => {
  const t = scheduleTimes(parseCronSchedule(scheduleSpec(a)), a, last, at(now));
  return { missed: iso(t.missed), next: iso(t.next), tooMany: t.tooMany };
};

describe('scheduleTimes (the native CronJob rule)', () => {
  it('has nothing due before the first start time, and the next one to wait for', () => {
    expect(times(acj({}), undefined, '2026-03-02T08:30:00Z')).toEqual({
      missed: undefined,
      next: '2026-03-02T09:00:00.000Z',
      tooMany: false,
    });
  });

  it('finds the most recent of many missed start times of an irregular schedule', () => {
    // Weekdays at 06:30, 10:30 and 14:30: from Monday 08:00 to Thursday 12:00.
    const a = acj({ schedule: '30 6-16/4 * * 1-5' });
    expect(times(a, undefined, '2026-03-05T12:00:00Z')).toEqual({
      missed: '2026-03-05T10:30:00.000Z',
      next: '2026-03-05T14:30:00.000Z',
      tooMany: false,
    });
  });

  it('starts from the last schedule time, and no earlier than the starting deadline', () => {
    expect(times(acj({}), '2026-03-02T10:00:00Z', '2026-03-02T10:30:00Z').missed).toBeUndefined();
    expect(times(acj({}), '2026-03-02T10:00:00Z', '2026-03-02T11:00:05Z').missed).toBe(
      '2026-03-02T11:00:00.000Z',
    );
    // 30 s of deadline: the start time of 11:00 is out of reach at 11:01.
    expect(
      times(acj({ startingDeadlineSeconds: 30 }), undefined, '2026-03-02T11:01:00Z').missed,
    ).toBeUndefined();
  });

  it('says when more than 100 start times were missed', () => {
    const a = acj({ schedule: '* * * * *' });
    expect(times(a, undefined, '2026-03-02T09:40:30Z')).toEqual({
      missed: '2026-03-02T09:40:00.000Z',
      next: '2026-03-02T09:41:00.000Z',
      tooMany: false,
    });
    expect(times(a, undefined, '2026-03-02T09:41:30Z').tooMany).toBe(true);
  });

  it('reads the schedule in timeZone unless the schedule names a zone', () => {
    expect(scheduleSpec(acj({ schedule: '0 9 * * *', timeZone: 'Asia/Tokyo' }))).toBe(
      'TZ=Asia/Tokyo 0 9 * * *',
    );
    expect(scheduleSpec(acj({ schedule: 'CRON_TZ=UTC 0 9 * * *', timeZone: 'Asia/Tokyo' }))).toBe(
      'CRON_TZ=UTC 0 9 * * *',
    );
    // A zone that does not load is left out, as upstream logs it and uses the schedule alone.
    expect(scheduleSpec(acj({ schedule: '0 9 * * *', timeZone: 'Nowhere/Land' }))).toBe('0 9 * * *');
  });
});

describe('history and run names', () => {
  const run = (name: string, startTime?: string): KubeObject => ({
    metadata: { name },
    status: startTime ? { startTime } : {},
  });

  it('deletes the oldest finished runs beyond the limit, unstarted ones first', () => {
    const runs = [
      run('c', '2026-03-02T03:00:00Z'),
      run('a', '2026-03-02T01:00:00Z'),
      run('never'),
      run('b', '2026-03-02T02:00:00Z'),
    ];
    expect(runsBeyondLimit(runs, 2).map((r) => r.metadata?.name)).toEqual(['never', 'a']);
    expect(runsBeyondLimit(runs, 0)).toHaveLength(4);
    expect(runsBeyondLimit(runs, undefined)).toEqual([]);
  });

  it('writes the scheduled time as Go formats RFC 3339, whole seconds with the zone offset', () => {
    expect(localRfc3339(at('2026-03-02T09:00:00.250Z'), 'UTC')).toBe('2026-03-02T09:00:00Z');
    expect(localRfc3339(at('2026-03-02T09:00:00Z'), 'Asia/Tokyo')).toBe('2026-03-02T18:00:00+09:00');
    expect(localRfc3339(at('2026-03-02T09:00:00Z'), 'America/St_Johns')).toBe('2026-03-02T05:30:00-03:30');
  });
});
