import { describe, expect, it } from 'vitest';
import { CronPanic, parseCronSchedule } from '../src/cron-parser.ts';
import { nextCronTime } from '../src/cron-schedule.ts';
import { goDate, loadGoLocation, wallClock } from '../src/go-time-zone.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The next activation after `from` of `spec`, as an ISO string in UTC. */
const next = (spec: string, from: string) => iso(nextCronTime(parseCronSchedule(spec), at(from)));

/** The parse error's message. */
function parseError(spec: string): string {
  try {
    parseCronSchedule(spec);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${spec} parsed`);
}

describe('parseCronSchedule', () => {
  it('reads ranges, steps, lists, names and ? as robfig does', () => {
    const s = parseCronSchedule('5,10-12 */6 1-31/10 JAN,mar-May ?');
    if (s.kind !== 'spec') throw new Error('not a field schedule');
    expect([...s.minute.values]).toEqual([5, 10, 11, 12]);
    expect([...s.hour.values]).toEqual([0, 6, 12, 18]);
    expect(s.hour.star).toBe(false);
    expect([...s.dom.values]).toEqual([1, 11, 21, 31]);
    expect([...s.month.values]).toEqual([1, 3, 4, 5]);
    expect(s.dow.star).toBe(true);
    expect([...s.dow.values]).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const named = parseCronSchedule('0 0 * * MON-fri');
    if (named.kind !== 'spec') throw new Error('not a field schedule');
    expect([...named.dow.values]).toEqual([1, 2, 3, 4, 5]);
    // "N/step" runs from N to the maximum.
    const from = parseCronSchedule('50/4 * * * *');
    if (from.kind !== 'spec') throw new Error('not a field schedule');
    expect([...from.minute.values]).toEqual([50, 54, 58]);
  });

  it("refuses bad specs in robfig's words", () => {
    expect(parseError('')).toBe('empty spec string');
    expect(parseError('foo')).toBe('expected exactly 5 fields, found 1: [foo]');
    expect(parseError('* * * * * *')).toBe('expected exactly 5 fields, found 6: [* * * * * *]');
    expect(parseError('60 * * * *')).toBe('end of range (60) above maximum (59): 60');
    expect(parseError('* * 0 * *')).toBe('beginning of range (0) below minimum (1): 0');
    expect(parseError('5-1 * * * *')).toBe('beginning of range (5) beyond end of range (1): 5-1');
    expect(parseError('*/0 * * * *')).toBe('step of range should be a positive number: */0');
    expect(parseError('1-2-3 * * * *')).toBe('too many hyphens: 1-2-3');
    expect(parseError('*/2/2 * * * *')).toBe('too many slashes: */2/2');
    expect(parseError('x * * * *')).toBe(
      'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax',
    );
    expect(parseError('* * * FOO *')).toBe(
      'failed to parse int from FOO: strconv.Atoi: parsing "FOO": invalid syntax',
    );
    expect(parseError('@fortnightly')).toBe('unrecognized descriptor: @fortnightly');
    expect(parseError('@every 1d')).toBe(
      'failed to parse duration @every 1d: time: unknown unit "d" in duration "1d"',
    );
    expect(parseError('TZ=Mars/Olympus * * * * *')).toBe(
      'provided bad location Mars/Olympus: unknown time zone Mars/Olympus',
    );
    expect(parseError('CRON_TZ=america/new_york * * * * *')).toBe(
      'provided bad location america/new_york: unknown time zone america/new_york',
    );
  });

  it('panics, as Go slicing does, on a zone prefix without a spec', () => {
    expect(() => parseCronSchedule('TZ=UTC')).toThrow(CronPanic);
    expect(parseError('TZ=UTC')).toBe('runtime error: slice bounds out of range [:-1]');
  });

  it('reads @every as whole seconds, at least one', () => {
    expect(parseCronSchedule('@every 10s')).toEqual({ kind: 'every', delayMs: 10_000 });
    expect(parseCronSchedule('@every 1m30.5s')).toEqual({ kind: 'every', delayMs: 90_000 });
    expect(parseCronSchedule('@every 10ms')).toEqual({ kind: 'every', delayMs: 1000 });
  });
});

describe('nextCronTime', () => {
  it('steps through minutes, hours, days, months and years', () => {
    expect(next('0/15 * * * *', '2012-07-09T14:45:00Z')).toBe('2012-07-09T15:00:00.000Z');
    expect(next('0/15 * * * *', '2012-07-09T14:59:59Z')).toBe('2012-07-09T15:00:00.000Z');
    expect(next('20-35/15 * * * *', '2012-07-09T15:45:00Z')).toBe('2012-07-09T16:20:00.000Z');
    expect(next('*/15 * * * *', '2012-07-09T23:46:00Z')).toBe('2012-07-10T00:00:00.000Z');
    expect(next('20-35/15 1/2 */2 * *', '2012-07-09T23:35:51Z')).toBe('2012-07-11T01:20:00.000Z');
    expect(next('0 0 9 Apr-Oct ?', '2012-07-09T23:35:00Z')).toBe('2012-08-09T00:00:00.000Z');
    expect(next('0 0 */5 Apr,Aug,Oct Mon', '2012-07-09T23:35:00Z')).toBe('2012-08-01T00:00:00.000Z');
    expect(next('0 0 * Feb Mon', '2012-07-09T23:35:00Z')).toBe('2013-02-04T00:00:00.000Z');
    expect(next('0 0 * Feb Mon/2', '2012-07-09T23:35:00Z')).toBe('2013-02-01T00:00:00.000Z');
    expect(next('* * * * *', '2012-12-31T23:59:45Z')).toBe('2013-01-01T00:00:00.000Z');
    expect(next('0 0 29 Feb ?', '2012-07-09T23:35:00Z')).toBe('2016-02-29T00:00:00.000Z');
  });

  it('has no next time for a date that never comes', () => {
    expect(next('0 0 30 Feb ?', '2012-07-09T23:35:00Z')).toBeUndefined();
    expect(next('0 0 31 Apr ?', '2012-07-09T23:35:00Z')).toBeUndefined();
  });

  it('runs the descriptors at their times', () => {
    expect(next('@hourly', '2026-03-01T10:15:00Z')).toBe('2026-03-01T11:00:00.000Z');
    expect(next('@daily', '2026-03-01T10:15:00Z')).toBe('2026-03-02T00:00:00.000Z');
    expect(next('@midnight', '2026-03-01T10:15:00Z')).toBe('2026-03-02T00:00:00.000Z');
    expect(next('@weekly', '2026-03-02T10:15:00Z')).toBe('2026-03-08T00:00:00.000Z');
    expect(next('@monthly', '2026-03-02T10:15:00Z')).toBe('2026-04-01T00:00:00.000Z');
    expect(next('@yearly', '2026-03-02T10:15:00Z')).toBe('2027-01-01T00:00:00.000Z');
    expect(next('@annually', '2026-03-02T10:15:00Z')).toBe('2027-01-01T00:00:00.000Z');
  });

  it('adds @every to the whole second it starts from', () => {
    expect(next('@every 10s', '2026-03-01T10:15:03.750Z')).toBe('2026-03-01T10:15:13.000Z');
    expect(next('@every 1h', '2026-03-01T10:15:03Z')).toBe('2026-03-01T11:15:03.000Z');
  });

  it('with both day fields restricted, runs on either', () => {
    // The 13th, or any Friday.
    expect(next('0 0 13 * FRI', '2026-03-01T00:00:00Z')).toBe('2026-03-06T00:00:00.000Z');
    expect(next('0 0 13 * FRI', '2026-03-10T00:00:00Z')).toBe('2026-03-13T00:00:00.000Z');
  });

  it('reads the fields in the TZ= zone, skipping the hour a DST gap removes', () => {
    const ny = 'TZ=America/New_York';
    expect(next(`${ny} 30 2 11 Mar ?`, '2012-03-11T00:00:00-05:00')).toBe(
      iso(at('2013-03-11T02:30:00-04:00')),
    );
    expect(next(`${ny} 0 * * * ?`, '2012-03-11T00:00:00-05:00')).toBe(iso(at('2012-03-11T01:00:00-05:00')));
    expect(next(`${ny} 0 * * * ?`, '2012-03-11T01:00:00-05:00')).toBe(iso(at('2012-03-11T03:00:00-04:00')));
    expect(next(`CRON_TZ=America/New_York 0 * * * ?`, '2012-03-11T03:00:00-04:00')).toBe(
      iso(at('2012-03-11T04:00:00-04:00')),
    );
    expect(next(`${ny} 0 1 * * ?`, '2012-03-11T01:00:00-05:00')).toBe(iso(at('2012-03-12T01:00:00-04:00')));
    // 2am does not exist that night: the next run is the day after.
    expect(next(`${ny} 0 2 * * ?`, '2012-03-11T00:00:00-05:00')).toBe(iso(at('2012-03-12T02:00:00-04:00')));
  });

  it('runs an hourly schedule in both passes of a DST overlap, a nightly one by its fields', () => {
    const ny = 'TZ=America/New_York';
    expect(next(`${ny} 30 2 04 Nov ?`, '2012-11-04T00:00:00-04:00')).toBe(
      iso(at('2012-11-04T02:30:00-05:00')),
    );
    expect(next(`${ny} 30 1 04 Nov ?`, '2012-11-04T01:45:00-04:00')).toBe(
      iso(at('2012-11-04T01:30:00-05:00')),
    );
    expect(next(`${ny} 0 * * * ?`, '2012-11-04T01:00:00-04:00')).toBe(iso(at('2012-11-04T01:00:00-05:00')));
    expect(next(`${ny} 0 * * * ?`, '2012-11-04T01:00:00-05:00')).toBe(iso(at('2012-11-04T02:00:00-05:00')));
    expect(next(`${ny} 0 1 * * ?`, '2012-11-04T01:00:00-04:00')).toBe(iso(at('2012-11-04T01:00:00-05:00')));
    expect(next(`${ny} 0 1 * * ?`, '2012-11-04T01:00:00-05:00')).toBe(iso(at('2012-11-05T01:00:00-05:00')));
    expect(next(`${ny} 0 2 * * ?`, '2012-11-04T00:00:00-04:00')).toBe(iso(at('2012-11-04T02:00:00-05:00')));
    expect(next(`${ny} 0 3 3 * ?`, '2012-11-04T00:00:00-04:00')).toBe(iso(at('2012-12-03T03:00:00-05:00')));
  });

  it('finds the day where DST starts at midnight (no 00:00 that day)', () => {
    const sp = 'TZ=America/Sao_Paulo';
    expect(next(`${sp} 0 9 10 * ?`, '2018-10-17T05:00:00-04:00')).toBe(iso(at('2018-11-10T06:00:00-05:00')));
    expect(next(`${sp} 0 9 22 * ?`, '2018-02-14T05:00:00-05:00')).toBe(iso(at('2018-02-22T07:00:00-05:00')));
  });

  it('reads the fields in a half-hour zone', () => {
    expect(next('TZ=Asia/Kolkata 14 14 * * *', '2016-01-03T13:09:03+05:30')).toBe(
      iso(at('2016-01-03T14:14:00+05:30')),
    );
    expect(next('TZ=Asia/Kolkata 14 14 * * ?', '2016-01-03T04:09:03+05:30')).toBe(
      iso(at('2016-01-03T14:14:00+05:30')),
    );
  });
});

describe('Go time zones', () => {
  it('loads zones as time.LoadLocation names them', () => {
    expect(loadGoLocation('')).toBe('UTC');
    expect(loadGoLocation('UTC')).toBe('UTC');
    expect(loadGoLocation('Local')).toBeUndefined();
    expect(loadGoLocation('Europe/Berlin')).toBe('Europe/Berlin');
    expect(() => loadGoLocation('Europe/Nowhere')).toThrow('unknown time zone Europe/Nowhere');
    expect(() => loadGoLocation('../etc/passwd')).toThrow('time: invalid location name');
  });

  it('places a wall time in a DST gap as time.Date does, and reads wall clocks back', () => {
    // 02:30 does not exist in New York on 2012-03-11: Go reads it with the offset before the gap.
    expect(iso(goDate('America/New_York', 2012, 3, 11, 2, 30))).toBe('2012-03-11T06:30:00.000Z');
    // An overlap's wall time is its first pass (daylight time).
    expect(iso(goDate('America/New_York', 2012, 11, 4, 1, 30))).toBe('2012-11-04T05:30:00.000Z');
    // Fields out of range carry over.
    expect(iso(goDate('UTC', 2012, 13, 32))).toBe('2013-02-01T00:00:00.000Z');
    expect(wallClock('Asia/Kolkata', at('2016-01-03T08:44:00Z'))).toMatchObject({
      hour: 14,
      minute: 14,
      weekday: 0,
    });
  });
});
