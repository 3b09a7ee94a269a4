import type { CloneSet, CloneSetStatus } from '@kruise/api';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { isPodAvailable } from '../../src/controllers/cloneset/availability.ts';
import {
  availableInstanceIds,
  choosePodsToDelete,
  deletionsToCancel,
  INSTANCE_ID_ALPHABET,
  limitByReadiness,
  plannedDeletions,
} from '../../src/controllers/cloneset/scale-plan.ts';
import {
  countPods,
  setCondition,
  statusChanged,
  updateProgressing,
} from '../../src/controllers/cloneset/status.ts';
import {
  limitUpdates,
  nextLifecycleState,
  sortUpdateCandidates,
  updateCandidates,
} from '../../src/controllers/cloneset/update-plan.ts';

const NOW = Date.parse('2026-01-01T00:10:00Z');

const cloneSet = (spec: Partial<CloneSet['spec']> = {}): CloneSet => ({
  metadata: { name: 'cs', namespace: 'ns', generation: 2 },
  spec: { replicas: 3, selector: { matchLabels: { app: 'a' } }, template: {}, ...spec } as CloneSet['spec'],
});

function pod(
  name: string,
  opts: {
    rev?: string;
    ready?: boolean;
    state?: string;
    labels?: Record<string, string>;
    node?: string;
    annotations?: Record<string, string>;
    finalizers?: string[];
  } = {},
): Pod {
  return {
    metadata: {
      name,
      uid: name,
      labels: {
        'controller-revision-hash': opts.rev ?? 'cs-new',
        'lifecycle.apps.kruise.io/state': opts.state ?? 'Normal',
        ...opts.labels,
      },
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
      ...(opts.finalizers ? { finalizers: opts.finalizers } : {}),
    },
    spec: {
      containers: [],
      ...(opts.node === undefined ? { nodeName: 'n1' } : opts.node ? { nodeName: opts.node } : {}),
    },
    status:
      opts.ready === false
        ? { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] }
        : {
            phase: 'Running',
            conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
          },
  } as Pod;
}
const names = (pods: Pod[]) => pods.map((p) => p.metadata!.name);
const available = (p: Pod) => isPodAvailable(p, 0, NOW);

describe('scale plan', () => {
  it('plans specified-delete and PreparingDelete pods, counting each once', () => {
    const cs = cloneSet({ scaleStrategy: { podsToDelete: ['b'] } });
    const pods = [
      pod('a', { labels: { 'apps.kruise.io/specified-delete': 'true' }, state: 'PreparingDelete' }),
      pod('b'),
      pod('c', { state: 'PreparingDelete' }),
      pod('d'),
    ];
    const planned = plannedDeletions(cs, pods);
    expect(names(planned.specified)).toEqual(['a', 'b']);
    expect(names(planned.preparingDelete)).toEqual(['a', 'c']);
    expect(planned.count).toBe(3);
  });

  it('cancels deletions of PreparingDelete pods (not specified) when replicas went back up, unless hooks mark pods not-ready', () => {
    const cs = cloneSet({ replicas: 3 });
    const pods = [pod('a', { state: 'PreparingDelete' }), pod('b', { state: 'PreparingDelete' }), pod('c')];
    const planned = plannedDeletions(cs, pods);
    expect(names(deletionsToCancel(cs, pods, planned.preparingDelete, planned.count))).toEqual(['a', 'b']);
    const small = cloneSet({ replicas: 2 });
    expect(names(deletionsToCancel(small, pods, planned.preparingDelete, planned.count))).toEqual(['a']);
    const hooked = cloneSet({
      replicas: 3,
      lifecycle: { preDelete: { markPodNotReady: true, finalizersHandler: ['f'] } },
    });
    expect(deletionsToCancel(hooked, pods, planned.preparingDelete, planned.count)).toEqual([]);
  });

  it('reuses instance ids of PVCs no pod uses, then generates fresh ones', () => {
    const pvc = (id: string) =>
      ({ metadata: { labels: { 'apps.kruise.io/cloneset-instance-id': id } } }) as PersistentVolumeClaim;
    const pods = [pod('cs-used', { labels: { 'apps.kruise.io/cloneset-instance-id': 'used1' } })];
    const sequence = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.99, 0, 0, 0, 0];
    let i = 0;
    const ids = availableInstanceIds(
      3,
      pods,
      [pvc('used1'), pvc('free1')],
      () => sequence[i++ % sequence.length]!,
    );
    expect(ids[0]).toBe('free1');
    expect(ids[1]).toBe('bbbbb');
    // 'bbbbb' again is taken, so the next draw is used.
    expect(ids[2]).toBe('9bbbb');
    expect(ids[2]).toMatch(new RegExp(`^[${INSTANCE_ID_ALPHABET}]{5}$`));
    expect(new Set(ids).size).toBe(3);
  });

  it('scales in old-revision pods first, unready and less valuable ones before others', () => {
    const cs = cloneSet();
    const old = [pod('old-ready', { rev: 'cs-old' }), pod('old-unready', { rev: 'cs-old', ready: false })];
    const updated = [pod('new-1'), pod('new-2', { node: '' })];
    const order = { available, nodeLabels: () => ({}) };
    expect(names(choosePodsToDelete(cs, 1, 1, old, updated, order))).toEqual(['old-unready']);
    expect(names(choosePodsToDelete(cs, 3, 1, old, updated, order))).toEqual([
      'old-unready',
      'new-1',
      'new-2',
    ]);
    expect(names(choosePodsToDelete(cs, 1, 0, old, updated, order))).toEqual(['new-2']);
  });

  it('deletes every unready pod but only as many ready ones as the limit allows', () => {
    const pods = [pod('r1'), pod('u1', { ready: false }), pod('r2'), pod('r3')];
    const out = limitByReadiness(pods, 1, available);
    expect(names(out.pods)).toEqual(['r1', 'u1']);
    expect(out.readyLimit).toBe(0);
  });
});

describe('update plan', () => {
  it('takes pods not at the target revision, skipping PreparingDelete and pods in grace, keeping Updated', () => {
    const pods = [
      pod('at-new'),
      pod('old'),
      pod('deleting', { rev: 'cs-old', state: 'PreparingDelete' }),
      pod('grace', { rev: 'cs-old', annotations: { 'apps.kruise.io/inplace-update-grace': '{}' } }),
      pod('updated', {
        rev: 'cs-old',
        state: 'Updated',
        annotations: { 'apps.kruise.io/inplace-update-grace': '{}' },
      }),
    ];
    pods[1]!.metadata!.labels!['controller-revision-hash'] = 'cs-old';
    expect(names(updateCandidates(pods, 2, 'cs-new'))).toEqual(['old', 'updated']);
    expect(names(updateCandidates(pods, -1, 'cs-new'))).toEqual(['at-new']);
  });

  it('moves PreparingUpdate pods to the front of the order', () => {
    const cs = cloneSet();
    const pods = [
      pod('a', { rev: 'cs-old', ready: false }),
      pod('b', { rev: 'cs-old', state: 'PreparingUpdate' }),
    ];
    expect(names(sortUpdateCandidates(cs, pods, pods))).toEqual(['b', 'a']);
  });

  it('stops at updateMaxUnavailable; unavailable candidates do not use the budget', () => {
    const pods = [
      pod('u1', { rev: 'cs-old', ready: false }),
      pod('a1', { rev: 'cs-old' }),
      pod('a2', { rev: 'cs-old' }),
      pod('a3', { rev: 'cs-old' }),
    ];
    expect(
      names(limitUpdates(pods, pods, { updateNum: 4, updateMaxUnavailable: 2 }, 'cs-new', available)),
    ).toEqual(['u1', 'a1']);
    expect(
      names(limitUpdates(pods, pods, { updateNum: 1, updateMaxUnavailable: 2 }, 'cs-new', available)),
    ).toEqual(['u1']);
    // An unavailable pod already at the target uses the budget.
    const withTarget = [...pods, pod('t', { ready: false })];
    expect(
      names(limitUpdates(pods, withTarget, { updateNum: 4, updateMaxUnavailable: 2 }, 'cs-new', available)),
    ).toEqual(['u1']);
  });

  it('moves lifecycle states as upstream', () => {
    const plain = cloneSet();
    expect(nextLifecycleState(plain, pod('p', { state: 'PreparingNormal' }), 'cs-new', () => true)).toBe(
      'Normal',
    );
    expect(
      nextLifecycleState(plain, pod('p', { state: 'PreparingNormal', node: '' }), 'cs-new', () => true),
    ).toBeUndefined();
    const preNormal = cloneSet({ lifecycle: { preNormal: { labelsHandler: { ok: 'true' } } } });
    expect(
      nextLifecycleState(preNormal, pod('p', { state: 'PreparingNormal' }), 'cs-new', () => true),
    ).toBeUndefined();
    expect(
      nextLifecycleState(
        preNormal,
        pod('p', { state: 'PreparingNormal', labels: { ok: 'true' } }),
        'cs-new',
        () => true,
      ),
    ).toBe('Normal');
    expect(nextLifecycleState(plain, pod('p', { state: 'Updating' }), 'cs-new', () => false)).toBeUndefined();
    expect(nextLifecycleState(plain, pod('p', { state: 'Updating' }), 'cs-new', () => true)).toBe('Normal');
    const hooked = cloneSet({ lifecycle: { inPlaceUpdate: { finalizersHandler: ['hook'] } } });
    expect(nextLifecycleState(hooked, pod('p', { state: 'Updating' }), 'cs-new', () => true)).toBe('Updated');
    expect(nextLifecycleState(hooked, pod('p', { state: 'Updated' }), 'cs-new', () => true)).toBeUndefined();
    expect(
      nextLifecycleState(hooked, pod('p', { state: 'Updated', finalizers: ['hook'] }), 'cs-new', () => true),
    ).toBe('Normal');
    expect(
      nextLifecycleState(hooked, pod('p', { state: 'PreparingUpdate', rev: 'cs-old' }), 'cs-new', () => true),
    ).toBeUndefined();
    expect(nextLifecycleState(hooked, pod('p', { state: 'PreparingUpdate' }), 'cs-new', () => true)).toBe(
      'Updated',
    );
  });
});

describe('status', () => {
  const base = (): CloneSetStatus => ({
    observedGeneration: 2,
    currentRevision: 'cs-old',
    updateRevision: 'cs-new',
    replicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    updatedReplicas: 0,
    updatedReadyReplicas: 0,
  });

  it('counts ready, available and updated pods; InPlaceUpdateReady False makes a pod not ready', () => {
    const cs = cloneSet({ replicas: 3, minReadySeconds: 3600, updateStrategy: { partition: 1 } });
    const inPlace = pod('in-place');
    (inPlace.status as any).conditions.push({ type: 'InPlaceUpdateReady', status: 'False' });
    const status = base();
    countPods(cs, status, [pod('a', { rev: 'cs-old' }), pod('b'), inPlace], NOW);
    expect(status).toMatchObject({
      replicas: 3,
      readyReplicas: 2,
      availableReplicas: 0,
      updatedReplicas: 2,
      updatedReadyReplicas: 1,
      updatedAvailableReplicas: 0,
      expectedUpdatedReplicas: 2,
      currentRevision: 'cs-old',
    });
  });

  it('moves currentRevision once all spec.replicas pods are updated, ready or not', () => {
    const status = base();
    countPods(
      cloneSet({ replicas: 2 }),
      status,
      [pod('a', { ready: false }), pod('b', { ready: false })],
      NOW,
    );
    expect(status.currentRevision).toBe('cs-new');
  });

  it('Progressing: progressing, then deadline exceeded (sticky), available, paused, partition available', () => {
    const cs = cloneSet({ replicas: 2, progressDeadlineSeconds: 60 });
    const status = {
      ...base(),
      replicas: 2,
      updatedReplicas: 1,
      updatedAvailableReplicas: 1,
      expectedUpdatedReplicas: 2,
    };
    const requeue = updateProgressing(cs, status, NOW);
    expect(status.conditions).toEqual([
      expect.objectContaining({
        type: 'Progressing',
        status: 'True',
        reason: 'CloneSetUpdated',
        message: 'CloneSet is progressing',
      }),
    ]);
    expect(requeue).toBe(61_000);
    updateProgressing(cs, status, NOW + 61_000);
    expect(status.conditions![0]).toMatchObject({
      status: 'False',
      reason: 'ProgressDeadlineExceeded',
      message: 'CloneSet revision cs-new has timed out progressing',
    });
    updateProgressing(cs, status, NOW + 62_000);
    expect(status.conditions![0]!.reason).toBe('ProgressDeadlineExceeded');
    const edge = {
      ...base(),
      replicas: 2,
      updatedReplicas: 1,
      updatedAvailableReplicas: 1,
      expectedUpdatedReplicas: 2,
    };
    updateProgressing(cs, edge, NOW);
    // exactly at the deadline it is not yet exceeded, and it must still ask to look again
    expect(updateProgressing(cs, edge, NOW + 60_000)).toBe(1);
    expect(edge.conditions![0]!.reason).toBe('CloneSetUpdated');
    updateProgressing(cs, edge, NOW + 60_001);
    expect(edge.conditions![0]!.reason).toBe('ProgressDeadlineExceeded');
    Object.assign(status, { currentRevision: 'cs-new', updatedReplicas: 2, updatedAvailableReplicas: 2 });
    updateProgressing(cs, status, NOW + 63_000);
    expect(status.conditions![0]).toMatchObject({
      status: 'True',
      reason: 'CloneSetAvailable',
      message: 'CloneSet is available',
    });
    const paused = cloneSet({ replicas: 2, progressDeadlineSeconds: 60, updateStrategy: { paused: true } });
    const s2 = { ...base(), replicas: 2, expectedUpdatedReplicas: 2 };
    updateProgressing(paused, s2, NOW);
    expect(s2.conditions![0]).toMatchObject({ reason: 'CloneSetPaused', message: 'CloneSet is paused' });
    const s3 = { ...base(), replicas: 2, expectedUpdatedReplicas: 1, updatedAvailableReplicas: 1 };
    updateProgressing(cs, s3, NOW);
    expect(s3.conditions![0]).toMatchObject({
      reason: 'ProgressPartitionAvailable',
      message: 'CloneSet has been paused due to partition ready',
    });
    const none = { ...base(), conditions: s3.conditions };
    updateProgressing(cloneSet({ progressDeadlineSeconds: 2 ** 31 - 1 }), none, NOW);
    expect(none.conditions).toBeUndefined();
  });

  it('keeps the first FailedScale message (same status and reason) and writes only on a real change', () => {
    const status = base();
    setCondition(status, { type: 'FailedScale', status: 'True', message: 'first' });
    setCondition(status, { type: 'FailedScale', status: 'True', message: 'second' });
    expect(status.conditions).toEqual([{ type: 'FailedScale', status: 'True', message: 'first' }]);
    expect(statusChanged({ ...base() }, { ...base(), conditions: status.conditions })).toBe(false);
    expect(statusChanged({ ...base() }, { ...base(), readyReplicas: 1 })).toBe(true);
    expect(statusChanged({ ...base(), observedGeneration: 3 }, { ...base() })).toBe(false);
  });
});
