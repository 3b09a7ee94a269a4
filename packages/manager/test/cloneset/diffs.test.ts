import type { CloneSet } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { calculateDiffs, type Diffs } from '../../src/controllers/cloneset/diffs.ts';
import { partitionReplicas } from '../../src/controllers/cloneset/partition.ts';

const OLD = 'cs-old';
const NEW = 'cs-new';
const NOW = Date.parse('2026-01-01T00:00:00Z');

function cloneSet(
  replicas: number,
  partition: number | string,
  maxUnavailable: number | string,
  maxSurge: number | string,
): CloneSet {
  return {
    metadata: { name: 'cs', namespace: 'ns' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'a' } },
      template: {},
      updateStrategy: { partition, maxUnavailable, maxSurge },
    },
  };
}

let counter = 0;
/** A pod at a revision, in a lifecycle state, ready (Running + Ready) or not, maybe marked for deletion. */
function pod(
  revision: string,
  ready: boolean,
  opts: { state?: string; specifiedDelete?: boolean } = {},
): Pod {
  return {
    metadata: {
      name: `cs-${counter++}`,
      labels: {
        'controller-revision-hash': revision,
        'lifecycle.apps.kruise.io/state': opts.state ?? 'Normal',
        ...(opts.specifiedDelete ? { 'apps.kruise.io/specified-delete': 'true' } : {}),
      },
    },
    spec: { containers: [] },
    ...(ready ? { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } } : {}),
  } as Pod;
}
const many = (n: number, make: () => Pod) => Array.from({ length: n }, make);

const ZERO: Diffs = {
  scaleUpNum: 0,
  scaleUpNumOldRevision: 0,
  scaleDownNum: 0,
  scaleDownNumOldRevision: 0,
  scaleUpLimit: 0,
  deleteReadyLimit: 0,
  useSurge: 0,
  useSurgeOldRevision: 0,
  updateNum: 0,
  updateMaxUnavailable: 0,
};
const diffs = (cs: CloneSet, pods: Pod[], extra: { rollback?: boolean; current?: string } = {}) =>
  calculateDiffs(cs, pods, {
    currentRevision: extra.current ?? OLD,
    updateRevision: NEW,
    partitionRollback: extra.rollback ?? false,
    now: NOW,
  });

describe('calculateDiffs: worked examples of upstream CloneSet (R replicas, P partition, U maxUnavailable, S maxSurge)', () => {
  it('R5 P3 U1 S0: 5 old ready → update 2 with updateMaxUnavailable 1; after 1 updated → 1; after 2 → nothing', () => {
    const cs = cloneSet(5, 3, 1, 0);
    expect(
      diffs(
        cs,
        many(5, () => pod(OLD, true)),
      ),
    ).toEqual({ ...ZERO, updateNum: 2, updateMaxUnavailable: 1 });
    expect(diffs(cs, [...many(4, () => pod(OLD, true)), pod(NEW, true)])).toEqual({
      ...ZERO,
      updateNum: 1,
      updateMaxUnavailable: 1,
    });
    expect(diffs(cs, [...many(3, () => pod(OLD, true)), ...many(2, () => pod(NEW, true))])).toEqual(ZERO);
  });

  it('rollback gate on, R5 P4 U2 S0: 4 new + 1 old → updateNum −3 with updateMaxUnavailable 2', () => {
    const cs = cloneSet(5, 4, 2, 0);
    const pods = [...many(4, () => pod(NEW, true)), pod(OLD, true)];
    expect(diffs(cs, pods, { rollback: true })).toEqual({ ...ZERO, updateNum: -3, updateMaxUnavailable: 2 });
    // Without the gate a raised partition does not roll back.
    expect(diffs(cs, pods, { rollback: false })).toEqual(ZERO);
  });

  it('in-place with surge, R5 P3 U1 S1: surge pod first, then updates, then the surplus old pod goes', () => {
    const cs = cloneSet(5, 3, 1, 1);
    expect(
      diffs(
        cs,
        many(5, () => pod(OLD, true)),
      ),
    ).toEqual({
      ...ZERO,
      scaleUpNum: 1,
      scaleUpLimit: 1,
      useSurge: 1,
      updateNum: 2,
      updateMaxUnavailable: 1,
    });
    expect(diffs(cs, [...many(5, () => pod(OLD, true)), pod(NEW, false)])).toEqual({
      ...ZERO,
      useSurge: 1,
      updateNum: 1,
      updateMaxUnavailable: 2,
    });
    expect(
      diffs(cs, [...many(4, () => pod(OLD, true)), pod(NEW, false, { state: 'Updating' }), pod(NEW, false)]),
    ).toEqual({
      ...ZERO,
      scaleDownNum: 1,
      scaleDownNumOldRevision: 1,
      deleteReadyLimit: 0,
    });
    expect(diffs(cs, [...many(4, () => pod(OLD, true)), pod(NEW, true), pod(NEW, false)])).toEqual({
      ...ZERO,
      scaleDownNum: 1,
      scaleDownNumOldRevision: 1,
      deleteReadyLimit: 1,
    });
  });

  it('specified delete with surge, R5 P0 U0 S1: replacement first, deletion once it is ready', () => {
    const cs = cloneSet(5, 0, 0, 1);
    const marked = () => pod(NEW, true, { specifiedDelete: true });
    expect(diffs(cs, [marked(), ...many(4, () => pod(NEW, true))])).toEqual({
      ...ZERO,
      scaleUpNum: 1,
      scaleUpLimit: 1,
      useSurge: 1,
    });
    expect(diffs(cs, [marked(), ...many(4, () => pod(NEW, true)), pod(NEW, false)])).toEqual({
      ...ZERO,
      useSurge: 1,
    });
    expect(diffs(cs, [marked(), ...many(5, () => pod(NEW, true))])).toEqual({
      ...ZERO,
      useSurge: 1,
      deleteReadyLimit: 1,
    });
    expect(
      diffs(
        cs,
        many(5, () => pod(NEW, true)),
      ),
    ).toEqual(ZERO);
  });

  it('partition "99%" of 5 keeps 4', () => {
    expect(partitionReplicas('99%', 5)).toBe(4);
    const cs = cloneSet(5, '99%', 3, 2);
    expect(
      diffs(
        cs,
        many(5, () => pod(OLD, true)),
      ),
    ).toEqual({
      ...ZERO,
      scaleUpNum: 1,
      scaleUpLimit: 1,
      useSurge: 1,
      updateNum: 1,
      updateMaxUnavailable: 3,
    });
  });
});

describe('calculateDiffs: scaling', () => {
  it('scales up from nothing, limited by scaleStrategy.maxUnavailable counting unavailable pods', () => {
    expect(diffs(cloneSet(5, 0, 1, 0), [])).toEqual({ ...ZERO, scaleUpNum: 5, scaleUpLimit: 5 });
    const limited = cloneSet(6, 0, 1, 0);
    limited.spec!.scaleStrategy = { maxUnavailable: 2 };
    expect(diffs(limited, [])).toEqual({ ...ZERO, scaleUpNum: 6, scaleUpLimit: 2 });
    expect(diffs(limited, [pod(NEW, true), pod(NEW, true), pod(NEW, false)])).toEqual({
      ...ZERO,
      scaleUpNum: 3,
      scaleUpLimit: 1,
    });
    expect(diffs(limited, [pod(NEW, true), pod(NEW, false), pod(NEW, false)])).toEqual({
      ...ZERO,
      scaleUpNum: 3,
      scaleUpLimit: 0,
    });
  });

  it('scales down with the ready-pod limit, taking old-revision pods first (no update: the scale-in does it)', () => {
    const cs = cloneSet(3, 0, 1, 0);
    expect(
      diffs(cs, [...many(2, () => pod(OLD, true)), ...many(3, () => pod(NEW, true))], { current: NEW }),
    ).toEqual({
      ...ZERO,
      scaleDownNum: 2,
      scaleDownNumOldRevision: 2,
      deleteReadyLimit: 3,
    });
  });

  it('counts PreparingDelete pods as unavailable, and leaves them out with the exclude label', () => {
    const cs = cloneSet(3, 0, 1, 0);
    const pods = [pod(NEW, true, { state: 'PreparingDelete' }), pod(NEW, true), pod(NEW, true)];
    expect(diffs(cs, pods, { current: NEW })).toEqual(ZERO);
    cs.metadata!.labels = { 'apps.kruise.io/cloneset-scaling-exclude-preparing-delete': 'true' };
    expect(diffs(cs, pods, { current: NEW })).toEqual({ ...ZERO, scaleUpNum: 1, scaleUpLimit: 1 });
  });

  it('does not surge while paused', () => {
    const cs = cloneSet(5, 0, 0, 3);
    cs.spec!.updateStrategy!.paused = true;
    // maxSurge is 0 while paused, so maxUnavailable 0 and maxSurge 0: nothing moves.
    expect(
      diffs(
        cs,
        many(5, () => pod(OLD, true)),
      ),
    ).toEqual({ ...ZERO, updateNum: 5, updateMaxUnavailable: 0 });
  });

  it('uses 0 for a decimal percentage of maxUnavailable, as the controller does', () => {
    const cs = cloneSet(5, 0, '12.5%', 0);
    expect(
      diffs(
        cs,
        many(5, () => pod(OLD, true)),
      ),
    ).toEqual({ ...ZERO, updateNum: 5, updateMaxUnavailable: 0 });
  });
});

describe('partition', () => {
  it.each([
    [undefined, 5, 0],
    [3, 5, 3],
    [7, 5, 5],
    [-1, 5, 0],
    ['50%', 5, 3],
    ['100%', 5, 5],
    ['90%', 5, 4],
    ['12.5%', 8, 1],
    ['99%', 1, 1],
    ['0%', 5, 0],
  ])('%s of %i replicas keeps %i pods at old revisions', (partition, replicas, kept) => {
    expect(partitionReplicas(partition as any, replicas)).toBe(kept);
  });

  it('rejects a string that is not a percentage', () => {
    expect(() => partitionReplicas('5', 5)).toThrow('invalid type: string is not a percentage');
  });
});
