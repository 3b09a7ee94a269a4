import type { KubeObject } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { newControllerFinder, REPLICAS_UNKNOWN } from '../../src/workload/controllerfinder/index.ts';
import { type FinderWorld, memorySources, obj, ownerRef, podOf } from './finder-sources.ts';

const selector = { matchLabels: { app: 'web' } };
const deleting = { deletionTimestamp: '2025-01-01T00:00:00Z' };
const deployment = obj('apps/v1', 'Deployment', 'web', { spec: { replicas: 3, selector } });
const rsOf = (
  name: string,
  owner: KubeObject,
  metadata: Record<string, unknown> = {},
  labels = { app: 'web' },
) =>
  obj('apps/v1', 'ReplicaSet', name, {
    metadata: { ownerReferences: [ownerRef(owner)], labels, ...metadata },
    spec: { replicas: 1, selector },
  });
const rsNew = rsOf('web-new', deployment);
const rsOld = rsOf('web-old', deployment);
const rsDeleting = rsOf('web-gone', deployment, deleting);
const rsUnmatched = rsOf('web-other', deployment, {}, { app: 'other' });
const cloneSet = obj('apps.kruise.io/v1alpha1', 'CloneSet', 'cs', { spec: { replicas: 2, selector } });
const csDeleting = obj('apps.kruise.io/v1alpha1', 'CloneSet', 'cs-del', {
  metadata: deleting,
  spec: { replicas: 8 },
});
const scaledToZero = obj('apps/v1', 'StatefulSet', 'zero', { spec: { replicas: 0, selector } });
const widget = obj('example.com/v1', 'Widget', 'w', {});
const daemonSet = obj('apps/v1', 'DaemonSet', 'agent', {});

const pods = {
  new1: podOf('new-1', rsNew),
  new2: podOf('new-2', rsNew, { phase: 'Succeeded' }),
  old1: podOf('old-1', rsOld, { deleting: true }),
  gone1: podOf('gone-1', rsDeleting),
  other1: podOf('other-1', rsUnmatched),
  cs1: podOf('cs-1', cloneSet),
  cs2: podOf('cs-2', cloneSet, { phase: 'Failed' }),
  csElsewhere: podOf('cs-x', cloneSet, { namespace: 'elsewhere' }),
  zero1: podOf('zero-1', scaledToZero),
  loose1: podOf('loose-1', undefined, { labels: { app: 'web', tier: 'a' } }),
  loose2: podOf('loose-2', undefined, { labels: { app: 'web', tier: 'c' } }),
  agent1: podOf('agent-1', daemonSet),
};

const world = (extra: KubeObject[] = []): FinderWorld => ({
  objects: [
    deployment,
    rsNew,
    rsOld,
    rsDeleting,
    rsUnmatched,
    cloneSet,
    csDeleting,
    scaledToZero,
    widget,
    daemonSet,
    ...Object.values(pods),
    ...extra,
  ],
  scales: [
    {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      scale: {
        metadata: { name: 'w', namespace: 'ns', uid: 'uid-w' },
        spec: { replicas: 2 },
        status: { replicas: 0, selector: 'app=web,tier in (a,b)' },
      },
    },
  ],
});

const names = (list: Pod[]) => list.map((p) => p.metadata?.name).sort();
const podsFor = (w: FinderWorld, apiVersion: string, kind: string, name: string, activeOnly = false) =>
  newControllerFinder(memorySources(w)).podsForRef({ apiVersion, kind, name }, 'ns', activeOnly);

describe('podsForRef', () => {
  it('finds a Deployment’s pods through its ReplicaSets that are not being deleted and match its selector', async () => {
    const found = await podsFor(world(), 'apps/v1', 'Deployment', 'web');
    expect(found.replicas).toBe(3);
    expect(names(found.pods)).toEqual(['new-1', 'new-2', 'old-1']);
  });

  it('keeps only active pods when asked', async () => {
    expect(names((await podsFor(world(), 'apps/v1', 'Deployment', 'web', true)).pods)).toEqual(['new-1']);
    expect(names((await podsFor(world(), 'apps.kruise.io/v1beta1', 'CloneSet', 'cs', true)).pods)).toEqual([
      'cs-1',
    ]);
  });

  it('finds the pods a Deployment without ReplicaSets owns itself', async () => {
    const lone = obj('apps/v1', 'Deployment', 'lone', { spec: { replicas: 1, selector } });
    const found = await podsFor(world([lone, podOf('lone-1', lone)]), 'apps/v1', 'Deployment', 'lone');
    expect(found).toMatchObject({ replicas: 1 });
    expect(names(found.pods)).toEqual(['lone-1']);
  });

  it('finds a ReplicaSet’s own pods and replicas, even one a Deployment controls', async () => {
    const found = await podsFor(world(), 'apps/v1', 'ReplicaSet', 'web-new');
    expect(found.replicas).toBe(1);
    expect(names(found.pods)).toEqual(['new-1', 'new-2']);
  });

  it('finds a CloneSet’s pods in the namespace asked only', async () => {
    const found = await podsFor(world(), 'apps.kruise.io/v1alpha1', 'CloneSet', 'cs');
    expect(found.replicas).toBe(2);
    expect(names(found.pods)).toEqual(['cs-1', 'cs-2']);
  });

  it('gives no pods and 0 replicas for a workload missing, being deleted, or scaled to 0', async () => {
    for (const [apiVersion, kind, name] of [
      ['apps/v1', 'Deployment', 'none'],
      ['apps/v1', 'ReplicaSet', 'web-gone'],
      ['apps.kruise.io/v1alpha1', 'CloneSet', 'cs-del'],
      ['apps/v1', 'StatefulSet', 'zero'],
      ['apps/v1', 'ReplicaSet', 'none'],
    ] as const)
      expect(await podsFor(world(), apiVersion, kind, name)).toEqual({ pods: [], replicas: 0 });
  });

  it('falls back on the scale subresource’s selector for a kind that owns no pods', async () => {
    const found = await podsFor(world(), 'example.com/v1', 'Widget', 'w');
    expect(found.replicas).toBe(2);
    expect(names(found.pods)).toEqual(['loose-1']);
  });

  it('takes every pod of the namespace for such a kind whose scale has no selector, as upstream', async () => {
    const w = world();
    delete w.scales![0]!.scale.status!.selector;
    const found = await podsFor(w, 'example.com/v1', 'Widget', 'w');
    expect(found.pods.length).toBe(Object.values(pods).filter((p) => p.metadata?.namespace === 'ns').length);
  });

  it('uses only the owned pods of such a kind when it owns some', async () => {
    const found = await podsFor(world([podOf('w-1', widget)]), 'example.com/v1', 'Widget', 'w');
    expect(names(found.pods)).toEqual(['w-1']);
  });

  it('lists the owned pods of a kind of unknown scale, with replicas unknown', async () => {
    const found = await podsFor(world(), 'apps/v1', 'DaemonSet', 'agent');
    expect(found.replicas).toBe(REPLICAS_UNKNOWN);
    expect(names(found.pods)).toEqual(['agent-1']);
  });
});

describe('expectedScaleForPods', () => {
  const expected = (w: FinderWorld, list: KubeObject[]) =>
    newControllerFinder(memorySources(w)).expectedScaleForPods(list as Pod[]);

  it('counts each workload once, however many of its pods and ReplicaSets are given', async () => {
    expect(await expected(world(), [pods.new1, pods.new2, pods.old1, pods.cs1, pods.cs2])).toBe(3 + 2);
  });

  it('skips orphans, missing controllers and controllers being deleted', async () => {
    const missing = obj('apps/v1', 'StatefulSet', 'missing', {});
    const list = [pods.cs1, pods.loose1, podOf('m-1', missing), podOf('d-1', csDeleting)];
    expect(await expected(world(), list)).toBe(2);
  });

  it('skips a controller whose uid is not the pod’s reference’s (a workload recreated under the name)', async () => {
    const stale = podOf('stale-1', { ...cloneSet, metadata: { ...cloneSet.metadata, uid: 'uid-before' } });
    expect(await expected(world(), [stale])).toBe(0);
  });

  it('adds an unknown scale as upstream does', async () => {
    expect(await expected(world(), [pods.cs1, pods.agent1])).toBe(2 + REPLICAS_UNKNOWN);
  });
});
