import { describe, expect, it } from 'vitest';
import { crrOutcome } from '../../src/crr/defaults.ts';
import { crrName, newRestartId, readRecord } from '../../src/restart-in-place/records.ts';

describe('restart records', () => {
  it('names a restart by its UTC start second and a request by pod and restart', () => {
    const id = newRestartId(new Date('2026-11-24T15:53:07.123Z'));
    expect(id).toBe('20261124-155307');
    expect(crrName('web-x7k2p', id)).toBe('web-x7k2p-restart-20261124-155307');
    expect(crrName('p'.repeat(300), id)).toHaveLength(253);
  });

  it('reads a record only when it is a JSON object with an id', () => {
    expect(readRecord({ k: '{"id":"1","reason":"r"}' }, 'k')).toEqual({ id: '1', reason: 'r' });
    expect(readRecord({ k: 'not json' }, 'k')).toBeUndefined();
    expect(readRecord({ k: '{"reason":"r"}' }, 'k')).toBeUndefined();
    expect(readRecord(undefined, 'k')).toBeUndefined();
  });
});

describe('crrOutcome', () => {
  const crr = (status: object) =>
    ({ spec: { podName: 'p', containers: [{ name: 'a' }, { name: 'b' }] }, status }) as any;
  it('is done and ok only when completed with every container Succeeded', () => {
    expect(crrOutcome(crr({ phase: 'Recreating' }))).toEqual({ done: false });
    const ok = [
      { name: 'a', phase: 'Succeeded' },
      { name: 'b', phase: 'Succeeded' },
    ];
    expect(crrOutcome(crr({ phase: 'Completed', containerRecreateStates: ok }))).toEqual({
      done: true,
      ok: true,
    });
  });

  it("fails with the request's message, or the failed container's", () => {
    expect(crrOutcome(crr({ phase: 'Completed', message: 'pod has gone' }))).toEqual({
      done: true,
      ok: false,
      message: 'pod has gone',
    });
    const states = [
      { name: 'a', phase: 'Succeeded' },
      { name: 'b', phase: 'Failed', message: 'kill container failed' },
    ];
    expect(crrOutcome(crr({ phase: 'Completed', containerRecreateStates: states }))).toEqual({
      done: true,
      ok: false,
      message: 'container b failed: kill container failed',
    });
  });
});
