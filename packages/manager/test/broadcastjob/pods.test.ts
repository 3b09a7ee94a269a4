import type { BroadcastJob } from '@kruise/api';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { placeJob, podsByNode } from '../../src/controllers/broadcastjob/placement.ts';
import {
  assignedNode,
  countPods,
  jobPods,
  labelledTemplate,
  newJobPod,
  restartedPastLimit,
} from '../../src/controllers/broadcastjob/pods.ts';

/** The BroadcastJob controller's pure parts: its pods, how they count, where they belong. */

const job = (spec: Record<string, unknown> = {}): BroadcastJob =>
  ({
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'BroadcastJob',
    metadata: { name: 'j', namespace: 'ns', uid: 'u1' },
    spec: {
      template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } },
      ...spec,
    },
  }) as BroadcastJob;
const pod = (phase: string | undefined, extra: Record<string, any> = {}): Pod => ({
  metadata: { name: `p-${phase}`, ...extra.metadata },
  spec: { containers: [], restartPolicy: extra.restartPolicy ?? 'Never', ...extra.spec },
  status: { phase, ...extra.status },
});
const node = (name: string, extra: Record<string, any> = {}): Node => ({
  metadata: { name, labels: extra.labels ?? {} },
  spec: extra.spec ?? {},
  status: { allocatable: { cpu: '2', memory: '2Gi', pods: '10', ...extra.alloc } },
});

describe('the pods of a BroadcastJob', () => {
  it('carry the job labels, its controller reference, and a pin to their node', () => {
    const p = newJobPod(job(), labelledTemplate(job()), 'n1', true);
    expect(p.metadata).toMatchObject({
      generateName: 'j-',
      namespace: 'ns',
      labels: { 'broadcastjob-name': 'j', 'broadcastjob-controller-uid': 'u1' },
      ownerReferences: [
        {
          apiVersion: 'apps.kruise.io/v1beta1',
          kind: 'BroadcastJob',
          name: 'j',
          uid: 'u1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(assignedNode(p)).toBe('n1');
    expect(p.spec?.nodeName).toBeUndefined();
    const byName = newJobPod(job(), labelledTemplate(job()), 'n2', false);
    expect(byName.spec?.nodeName).toBe('n2');
    expect(byName.spec?.affinity).toBeUndefined();
  });

  it('replace the template’s own required node affinity with the pin (it was checked already)', () => {
    const template = {
      spec: {
        containers: [],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
            },
          },
        },
      },
    };
    const p = newJobPod(job(), template, 'n1', true);
    expect(
      p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
    ).toEqual([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]);
  });

  it('are those with both labels that the job controls', () => {
    const labels = { 'broadcastjob-name': 'j', 'broadcastjob-controller-uid': 'u1' };
    const ref = {
      apiVersion: 'apps.kruise.io/v1beta1',
      kind: 'BroadcastJob',
      name: 'j',
      uid: 'u1',
      controller: true,
    };
    const mine = pod('Running', { metadata: { name: 'mine', labels, ownerReferences: [ref] } });
    const relabelled = pod('Running', {
      metadata: { name: 'x', labels: { 'broadcastjob-name': 'j' }, ownerReferences: [ref] },
    });
    const other = pod('Running', {
      metadata: { name: 'y', labels, ownerReferences: [{ ...ref, uid: 'u2' }] },
    });
    expect(jobPods(job(), [mine, relabelled, other]).map((p) => p.metadata?.name)).toEqual(['mine']);
  });
});

describe('counting (upstream filterPods)', () => {
  it('sorts by phase; a pod being deleted is neither active nor finished', () => {
    const deleting = pod('Running', { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } });
    const c = countPods([pod('Succeeded'), pod('Failed'), pod('Running'), pod(undefined), deleting], 0);
    expect([c.succeeded.length, c.failed.length, c.active.length]).toEqual([1, 1, 2]);
  });

  it('counts an OnFailure pod failed once init and app containers restarted more than restartLimit in all', () => {
    const restarts = (init: number, app: number) =>
      pod('Running', {
        restartPolicy: 'OnFailure',
        status: {
          initContainerStatuses: [{ restartCount: init }],
          containerStatuses: [{ restartCount: app }],
        },
      });
    expect(restartedPastLimit(restarts(1, 1), 2)).toBe(false);
    expect(restartedPastLimit(restarts(1, 2), 2)).toBe(true);
    // a Never pod is judged by its phase alone
    expect(
      restartedPastLimit({ ...restarts(5, 5), spec: { containers: [], restartPolicy: 'Never' } }, 0),
    ).toBe(false);
    expect(countPods([restarts(0, 3)], 2).failed).toHaveLength(1);
  });
});

describe('placement (upstream getNodesToRunPod)', () => {
  const jobPod = (nodeName: string, extra: Record<string, any> = {}) =>
    pod('Running', {
      spec: { nodeName, ...extra.spec },
      metadata: { name: `on-${nodeName}`, ...extra.metadata },
    });

  it('wants every node that fits; nodes with the job’s pod need none', () => {
    const nodes = [
      node('a'),
      node('b'),
      node('c', { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } }),
    ];
    const placed = placeJob(
      job(),
      nodes,
      podsByNode([jobPod('a')], () => {}),
    );
    expect([...placed.desired.keys()]).toEqual(['a', 'b']);
    expect(placed.rest.map((n) => n.metadata?.name)).toEqual(['b']);
    expect(placed.toDelete).toEqual([]);
  });

  it('deletes the pod of a node it no longer fits, unless it is being deleted already', () => {
    const evicting = node('a', { spec: { taints: [{ key: 'k', effect: 'NoExecute' }] } });
    expect(
      placeJob(
        job(),
        [evicting],
        podsByNode([jobPod('a')], () => {}),
      ).toDelete,
    ).toHaveLength(1);
    const deleting = jobPod('a', { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } });
    const placed = placeJob(
      job(),
      [evicting],
      podsByNode([deleting], () => {}),
    );
    expect(placed.toDelete).toEqual([]);
    expect(placed.desired.has('a')).toBe(true);
  });

  it('wants a node whose allocatable fits the pod, busy or not (upstream), and none too small for it', () => {
    const big = (cpu: string) =>
      job({
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [{ name: 'c', image: 'i', resources: { requests: { cpu } } }],
          },
        },
      });
    // the test node has 2 CPUs allocatable
    expect(placeJob(big('1500m'), [node('a')], new Map()).desired.size).toBe(1);
    expect(placeJob(big('3'), [node('a')], new Map()).desired.size).toBe(0);
  });

  it('tells of a second pod on one node', () => {
    const seen: string[] = [];
    podsByNode([jobPod('a'), { ...jobPod('a'), metadata: { name: 'again' } }], (p, n) =>
      seen.push(`${p.metadata?.name}@${n}`),
    );
    expect(seen).toEqual(['again@a']);
  });
});
