import { desiredAvailable, type PodUnavailableBudget, pubProtects, takeDisruption } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { DownTracker } from '../../src/controllers/podunavailablebudget/down-tracker.ts';
import {
  countAvailable,
  currentRecords,
  nextStatus,
} from '../../src/controllers/podunavailablebudget/status.ts';

const T0 = Date.parse('2026-12-07T10:00:00Z');
const at = (ms: number) => `${new Date(T0 + ms).toISOString().slice(0, 19)}Z`;

const ready = (name: string, extra: Partial<Pod['metadata']> = {}): Pod => ({
  metadata: { name, namespace: 'default', ...extra },
  spec: { containers: [{ name: 'c', image: 'busybox:1' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});

const pub = (
  spec: PodUnavailableBudget['spec'],
  annotations?: Record<string, string>,
): PodUnavailableBudget => ({
  metadata: { name: 'web', namespace: 'default', generation: 2, ...(annotations ? { annotations } : {}) },
  spec,
});

describe('PodUnavailableBudget arithmetic', () => {
  it('computes desired from maxUnavailable (rounded up) or minAvailable', () => {
    expect(desiredAvailable(pub({ maxUnavailable: 1 }), 4)).toBe(3);
    expect(desiredAvailable(pub({ maxUnavailable: '25%' }), 10)).toBe(7);
    expect(desiredAvailable(pub({ maxUnavailable: 9 }), 4)).toBe(0);
    expect(desiredAvailable(pub({ minAvailable: '50%' }), 5)).toBe(3);
    expect(desiredAvailable(pub({ minAvailable: 2 }), 0)).toBe(2);
    expect(() => desiredAvailable(pub({ maxUnavailable: '1.5%' }), 4)).toThrow(
      /invalid value for IntOrString/,
    );
  });

  it('protects DELETE, UPDATE and EVICT by default, RESIZE as UPDATE unless InPlacePodVerticalScaling', () => {
    const all = pub({});
    for (const op of ['DELETE', 'UPDATE', 'EVICT', 'RESIZE'] as const)
      expect(pubProtects(all, op, false)).toBe(true);
    expect(pubProtects(all, 'RESIZE', true)).toBe(false);
    const deletes = pub({}, { 'kruise.io/pub-protect-operations': 'DELETE,EVICT' });
    expect(pubProtects(deletes, 'UPDATE', false)).toBe(false);
    expect(pubProtects(deletes, 'EVICT', false)).toBe(true);
  });

  it('keeps records for 20 s (disrupted) and 10 s (updated), drops those of gone or inactive pods', () => {
    const pods = [ready('a'), ready('b'), ready('c'), ready('gone-soon', { deletionTimestamp: at(0) })];
    const records = currentRecords(
      pods,
      {
        disruptedPods: { a: at(0), b: at(-25_000), 'gone-soon': at(0), vanished: at(0) },
        unavailablePods: { c: at(-5_000) },
        unavailableAllowed: 0,
        currentAvailable: 0,
        desiredAvailable: 0,
        totalReplicas: 0,
      },
      T0,
    );
    expect(records.disruptedPods).toEqual({ a: at(0) });
    expect(records.unavailablePods).toEqual({ c: at(-5_000) });
    expect(records.notDeleted.map((p) => p.metadata?.name)).toEqual(['b']);
    expect(records.recheckAt).toBe(T0 + 5_000);
    // a and c are recorded: only b counts (the terminating pod is not active)
    expect(countAvailable(pods, records, () => 0)).toBe(1);
  });

  it('never allows more than maxUnavailable when a surge pod stands beside a specified-delete one (#2175)', () => {
    const p = pub({ maxUnavailable: 1 });
    // 6 replicas, maxSurge 1: 7 ready pods while the specified-delete one waits to go
    const status = nextStatus(
      p,
      { currentAvailable: 7, desiredAvailable: 5, totalReplicas: 6 },
      { disruptedPods: {}, unavailablePods: {}, notDeleted: [] },
    );
    expect(status?.unavailableAllowed).toBe(1);
    expect(status?.currentAvailable).toBe(7);
    expect(status?.observedGeneration).toBe(2);
    // nothing to write when the status already says so
    expect(
      nextStatus(
        { ...p, status },
        { currentAvailable: 7, desiredAvailable: 5, totalReplicas: 6 },
        {
          disruptedPods: {},
          unavailablePods: {},
          notDeleted: [],
        },
      ),
    ).toBeUndefined();
  });

  it('takes one unit per disruption and refuses at zero with upstream words', () => {
    const p: PodUnavailableBudget = {
      ...pub({ maxUnavailable: 1 }),
      status: { unavailableAllowed: 1, currentAvailable: 4, desiredAvailable: 3, totalReplicas: 4 },
    };
    expect(takeDisruption(p, 'a', 'UPDATE', new Date(T0))).toBeUndefined();
    // recorded to the millisecond
    expect(p.status).toMatchObject({
      unavailableAllowed: 0,
      unavailablePods: { a: '2026-12-07T10:00:00.000Z' },
    });
    expect(takeDisruption(p, 'b', 'DELETE', new Date(T0))).toBe('pub unavailable allowed is negative');
    expect(p.status?.disruptedPods).toEqual({});
  });
});

describe('an updated pod back early', () => {
  it('drops its record once it went down after the record and is available again, not before', () => {
    const tracker = new DownTracker(() => T0 + 500);
    const up = ready('a', { uid: 'ua' });
    const down: Pod = {
      ...up,
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] },
    };
    const isUp = (p: Pod) => p.status?.conditions?.[0]?.status === 'True';
    const status = {
      unavailablePods: { a: new Date(T0 + 200).toISOString() },
      unavailableAllowed: 0,
      currentAvailable: 0,
      desiredAvailable: 0,
      totalReplicas: 1,
    };
    const isBack = (p: Pod, at: number) => tracker.isBack(p, at, isUp);
    // recorded, not yet gone down: kept
    expect(currentRecords([up], status, T0 + 300, isBack).unavailablePods).toHaveProperty('a');
    tracker.observe(up, down, isUp);
    // down: kept
    expect(currentRecords([down], status, T0 + 600, isBack).unavailablePods).toHaveProperty('a');
    // back after going down: dropped at once, long before the 10 s
    expect(currentRecords([up], status, T0 + 900, isBack).unavailablePods).toEqual({});
    // a blip before the record does not count
    const early = new DownTracker(() => T0 + 100);
    early.observe(up, down, isUp);
    expect(
      currentRecords([up], status, T0 + 900, (p, at) => early.isBack(p, at, isUp)).unavailablePods,
    ).toHaveProperty('a');
  });
});

describe('a record at the moment it runs out', () => {
  it('is dropped, so the reconcile that looks again then is never the last', () => {
    const records = currentRecords(
      [ready('a'), ready('b')],
      {
        unavailablePods: { a: at(-10_000) },
        disruptedPods: { b: at(-20_000) },
        unavailableAllowed: 0,
        currentAvailable: 0,
        desiredAvailable: 0,
        totalReplicas: 2,
      },
      T0,
    );
    expect(records.unavailablePods).toEqual({});
    expect(records.disruptedPods).toEqual({});
    expect(records.recheckAt).toBeUndefined();
  });
});
