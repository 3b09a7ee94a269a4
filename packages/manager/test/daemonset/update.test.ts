import { KruiseResources } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DaemonSetEnv,
  daemonSet,
  eventually,
  getDs,
  imageOf,
  nodesOf,
  podsOf,
  runUntil,
  startDaemonSetEnv,
} from './harness.ts';

/**
 * Advanced DaemonSet rolling updates against the control plane (kubelet played by the test): by
 * recreate within maxUnavailable, in place keeping the pods, by surge with old and new side by
 * side, only on the nodes rollingUpdate.selector picks, held by a partition or a pause, and pods
 * held by the preDelete hook.
 */
const NODES = ['n1', 'n2', 'n3', 'n4'];
let env: DaemonSetEnv;
beforeAll(async () => {
  env = await startDaemonSetEnv(NODES);
  for (const [i, n] of NODES.entries())
    await env.client.mergePatch(Resources.Node, undefined, n, {
      metadata: { labels: { canary: String(i % 2 === 0) } },
    });
}, 60_000);
afterAll(() => env?.stop());

const create = (obj: KubeObject) => env.client.create(KruiseResources.DaemonSet, obj);
const template = (name: string, image: string, inPlace = false) => ({
  metadata: { labels: { app: name } },
  spec: {
    ...(inPlace ? { readinessGates: [{ conditionType: 'InPlaceUpdateReady' }] } : {}),
    containers: [{ name: 'main', image }],
  },
});
const rolling = (r: Record<string, unknown>) => ({
  updateStrategy: { type: 'RollingUpdate', rollingUpdate: r },
});
const setImage = (name: string, image: string) =>
  env.client.mergePatch(KruiseResources.DaemonSet, 'default', name, {
    spec: { template: { spec: { containers: [{ name: 'main', image }] } } },
  });
const patchRolling = (name: string, r: Record<string, unknown>) =>
  env.client.mergePatch(KruiseResources.DaemonSet, 'default', name, {
    spec: { updateStrategy: { rollingUpdate: r } },
  });
const allAvailable = (name: string) =>
  runUntil(env.client, name, (pods, ds) =>
    pods.length === NODES.length && ds.status?.numberAvailable === NODES.length ? pods : undefined,
  );
const ready = (p: Pod) => p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
const byNode = (pods: Pod[]): Record<string, Pod> =>
  Object.fromEntries(pods.map((p) => [nodesOf([p])[0], p]));

describe('Advanced DaemonSet rolling update', () => {
  it('recreates pods one node at a time with maxUnavailable 1, never more than one node unavailable', async () => {
    await create(daemonSet('recreate', { template: template('recreate', 'busybox:v1') }));
    const before = await allAvailable('recreate');
    await setImage('recreate', 'busybox:v2');
    let worst = 0;
    const pods = await runUntil(env.client, 'recreate', (pods, ds) => {
      const readyNew = pods.filter((p) => imageOf(p) === 'busybox:v2' && ready(p)).length;
      const readyOld = pods.filter((p) => imageOf(p) === 'busybox:v1' && ready(p)).length;
      worst = Math.max(worst, NODES.length - readyNew - readyOld);
      return readyNew === NODES.length && ds.status?.updatedNumberScheduled === NODES.length
        ? pods
        : undefined;
    });
    expect(worst).toBeLessThanOrEqual(1);
    expect(pods.map((p) => p.metadata?.uid).filter((u) => before.some((b) => b.metadata?.uid === u))).toEqual(
      [],
    );
  });

  it('updates in place under InPlaceIfPossible: the same pods, the new image, the revision label moved', async () => {
    await create(
      daemonSet('inplace', {
        template: template('inplace', 'busybox:v1', true),
        ...rolling({ rollingUpdateType: 'InPlaceIfPossible', maxUnavailable: 2 }),
      }),
    );
    const before = await allAvailable('inplace');
    await setImage('inplace', 'busybox:v2');
    const ds = await runUntil(env.client, 'inplace', (pods, ds) =>
      pods.every((p) => imageOf(p) === 'busybox:v2') && ds.status?.updatedNumberScheduled === NODES.length
        ? ds
        : undefined,
    );
    const after = await podsOf(env.client, 'inplace');
    expect(after.map((p) => p.metadata?.uid).sort()).toEqual(before.map((p) => p.metadata?.uid).sort());
    for (const p of after)
      expect(p.metadata?.labels?.['controller-revision-hash']).toBe(ds.status?.updateRevision);
    const state = JSON.parse(after[0]!.metadata!.annotations!['apps.kruise.io/inplace-update-state']!);
    expect(state.revision).toBe(ds.status?.updateRevision);
  });

  it('surges: a new pod beside the old one, the old one deleted once the new is available', async () => {
    await create(
      daemonSet('surge', { template: template('surge', 'busybox:v1'), ...rolling({ maxSurge: 1 }) }),
    );
    await allAvailable('surge');
    await setImage('surge', 'busybox:v2');
    let sideBySide = false;
    let nodeWithoutReady = false;
    await runUntil(env.client, 'surge', async (pods, ds) => {
      // every pod, those being deleted too: an old pod serves until kubelet has removed it
      const perNode = new Map<string, Pod[]>();
      for (const p of await podsOf(env.client, 'surge', true))
        perNode.set(nodesOf([p])[0]!, [...(perNode.get(nodesOf([p])[0]!) ?? []), p]);
      if ([...perNode.values()].some((ps) => ps.length === 2)) sideBySide = true;
      if (NODES.some((n) => !(perNode.get(n) ?? []).some(ready))) nodeWithoutReady = true;
      return pods.length === NODES.length && ds.status?.updatedNumberScheduled === NODES.length
        ? true
        : undefined;
    });
    expect(sideBySide).toBe(true);
    expect(nodeWithoutReady).toBe(false);
  });

  it('updates only the nodes rollingUpdate.selector picks, up to nodes − partition, not while paused', async () => {
    await create(daemonSet('canary', { template: template('canary', 'busybox:v1') }));
    await allAvailable('canary');
    await patchRolling('canary', { paused: true });
    await setImage('canary', 'busybox:v2');
    await eventually(async () => (await getDs(env.client, 'canary')).status?.observedGeneration === 3);
    await new Promise((r) => setTimeout(r, 500));
    expect((await podsOf(env.client, 'canary')).every((p) => imageOf(p) === 'busybox:v1')).toBe(true);
    await patchRolling('canary', { paused: false, selector: { matchLabels: { canary: 'true' } } });
    const pods = await runUntil(env.client, 'canary', (pods, ds) =>
      ds.status?.updatedNumberScheduled === 2 && pods.length === NODES.length && pods.every(ready)
        ? pods
        : undefined,
    );
    const images = Object.fromEntries(Object.entries(byNode(pods)).map(([n, p]) => [n, imageOf(p)]));
    expect(images).toEqual({ n1: 'busybox:v2', n2: 'busybox:v1', n3: 'busybox:v2', n4: 'busybox:v1' });
    // without the selector, a partition of 1 keeps one node (the first by name among the rest) old
    await patchRolling('canary', { selector: null, partition: 1 });
    const partitioned = await runUntil(env.client, 'canary', (pods, ds) =>
      ds.status?.updatedNumberScheduled === 3 && pods.length === NODES.length && pods.every(ready)
        ? pods
        : undefined,
    );
    expect(imageOf(byNode(partitioned).n2!)).toBe('busybox:v1');
  });

  it('holds a pod the preDelete hook marks in PreparingDelete until the hook is released', async () => {
    await create(
      daemonSet('hooked', {
        template: {
          ...template('hooked', 'busybox:v1'),
          metadata: { labels: { app: 'hooked', hold: 'true' } },
        },
        lifecycle: { preDelete: { labelsHandler: { hold: 'true' } } },
        ...rolling({ selector: { matchLabels: { 'kubernetes.io/hostname': 'n1' } } }),
      }),
    );
    await allAvailable('hooked');
    await setImage('hooked', 'busybox:v2');
    const held = await eventually(async () =>
      (await podsOf(env.client, 'hooked')).find(
        (p) => p.metadata?.labels?.['lifecycle.apps.kruise.io/state'] === 'PreparingDelete',
      ),
    );
    expect(nodesOf([held])).toEqual(['n1']);
    await new Promise((r) => setTimeout(r, 500));
    expect((await podsOf(env.client, 'hooked')).some((p) => p.metadata?.uid === held.metadata?.uid)).toBe(
      true,
    );
    expect((await getDs(env.client, 'hooked')).status?.numberUnavailable).toBe(0);
    await env.client.mergePatch(Resources.Pod, 'default', held.metadata!.name!, {
      metadata: { labels: { hold: null } },
    });
    const pods = await runUntil(env.client, 'hooked', (pods) =>
      imageOf(byNode(pods).n1 ?? {}) === 'busybox:v2' && pods.every(ready) ? pods : undefined,
    );
    expect(pods.some((p) => p.metadata?.uid === held.metadata?.uid)).toBe(false);
  });

  it('rolls a node that leaves the canary back to the stable revision: in place, or by a new pod (#1871)', async () => {
    for (const [name, type] of [
      ['back-inplace', 'InPlaceIfPossible'],
      ['back-recreate', 'Standard'],
    ] as const) {
      await create(
        daemonSet(name, {
          template: template(name, 'busybox:v1', true),
          ...rolling({ rollingUpdateType: type, selector: { matchLabels: { canary: 'true' } } }),
        }),
      );
      await allAvailable(name);
      await setImage(name, 'busybox:v2');
      const canary = await runUntil(env.client, name, (pods, ds) =>
        ds.status?.updatedNumberScheduled === 2 && pods.length === NODES.length && pods.every(ready)
          ? pods
          : undefined,
      );
      expect(Object.fromEntries(Object.entries(byNode(canary)).map(([n, p]) => [n, imageOf(p)]))).toEqual({
        n1: 'busybox:v2',
        n2: 'busybox:v1',
        n3: 'busybox:v2',
        n4: 'busybox:v1',
      });
    }
    const beforeInPlace = byNode(await podsOf(env.client, 'back-inplace')).n3!;
    await env.client.mergePatch(Resources.Node, undefined, 'n3', {
      metadata: { labels: { canary: 'false' } },
    });
    for (const name of ['back-inplace', 'back-recreate']) {
      const pods = await runUntil(env.client, name, (pods, ds) =>
        ds.status?.updatedNumberScheduled === 1 &&
        pods.length === NODES.length &&
        pods.every(ready) &&
        imageOf(byNode(pods).n3!) === 'busybox:v1'
          ? pods
          : undefined,
      );
      expect(imageOf(byNode(pods).n1!)).toBe('busybox:v2');
      const n3 = byNode(pods).n3!;
      if (name === 'back-inplace') expect(n3.metadata?.uid).toBe(beforeInPlace.metadata?.uid);
    }
    // a node that joins the canary again goes forward
    await env.client.mergePatch(Resources.Node, undefined, 'n3', {
      metadata: { labels: { canary: 'true' } },
    });
    await runUntil(env.client, 'back-inplace', (pods, ds) =>
      ds.status?.updatedNumberScheduled === 2 &&
      pods.every(ready) &&
      imageOf(byNode(pods).n3!) === 'busybox:v2'
        ? true
        : undefined,
    );
  });

  it('treats an empty rollingUpdate.selector as every node', async () => {
    await create(
      daemonSet('all-nodes', {
        template: template('all-nodes', 'busybox:v1', true),
        ...rolling({ rollingUpdateType: 'InPlaceIfPossible', selector: {} }),
      }),
    );
    await allAvailable('all-nodes');
    await setImage('all-nodes', 'busybox:v2');
    await runUntil(env.client, 'all-nodes', (pods, ds) =>
      ds.status?.updatedNumberScheduled === NODES.length && pods.every(ready) && pods.length === NODES.length
        ? pods
        : undefined,
    );
  });

  it('rolls back only the canaries: a node updated before the selector was set keeps its revision', async () => {
    await create(
      daemonSet('late-canary', {
        template: template('late-canary', 'busybox:v1', true),
        ...rolling({ rollingUpdateType: 'InPlaceIfPossible', partition: 2 }),
      }),
    );
    await allAvailable('late-canary');
    await setImage('late-canary', 'busybox:v2');
    // nodes update from the last name: n4 and n3, while the partition keeps n1 and n2
    const first = await runUntil(env.client, 'late-canary', (pods, ds) =>
      ds.status?.updatedNumberScheduled === 2 && pods.every(ready) ? byNode(pods) : undefined,
    );
    expect([imageOf(first.n3!), imageOf(first.n4!)]).toEqual(['busybox:v2', 'busybox:v2']);
    // a canary on canary=true (n1, n3) without the partition: n1 updates, n4 (not picked, updated
    // before the canary) stays, n2 stays at the stable revision
    await patchRolling('late-canary', { partition: null, selector: { matchLabels: { canary: 'true' } } });
    const after = await runUntil(env.client, 'late-canary', (pods, ds) =>
      ds.status?.updatedNumberScheduled === 3 && pods.every(ready) ? byNode(pods) : undefined,
    );
    await new Promise((r) => setTimeout(r, 500));
    const settled = byNode(await podsOf(env.client, 'late-canary'));
    expect(Object.fromEntries(Object.entries(settled).map(([n, p]) => [n, imageOf(p)]))).toEqual({
      n1: 'busybox:v2',
      n2: 'busybox:v1',
      n3: 'busybox:v2',
      n4: 'busybox:v2',
    });
    expect(settled.n4!.metadata?.uid).toBe(after.n4!.metadata?.uid);
  });

  it('recreates a deleted pod of an OnDelete DaemonSet at the new revision, a leftover selector notwithstanding', async () => {
    await create(
      daemonSet('on-delete', {
        template: template('on-delete', 'busybox:v1'),
        updateStrategy: {
          type: 'OnDelete',
          rollingUpdate: { selector: { matchLabels: { canary: 'true' } } },
        },
      }),
    );
    await allAvailable('on-delete');
    await setImage('on-delete', 'busybox:v2');
    const n2 = byNode(await podsOf(env.client, 'on-delete')).n2!;
    await env.client.delete(Resources.Pod, 'default', n2.metadata!.name!, { gracePeriodSeconds: 0 });
    const pods = await runUntil(env.client, 'on-delete', (pods) =>
      pods.length === NODES.length && pods.every(ready) && byNode(pods).n2?.metadata?.uid !== n2.metadata?.uid
        ? pods
        : undefined,
    );
    expect(imageOf(byNode(pods).n2!)).toBe('busybox:v2');
    expect(imageOf(byNode(pods).n1!)).toBe('busybox:v1');
  });

  it('creates pods only up to desired − partition with partitionedScaling, the rest as the partition goes down', async () => {
    await create(
      daemonSet('progressive', {
        template: template('progressive', 'busybox:v1'),
        scaleStrategy: { partitionedScaling: true },
        ...rolling({ partition: 2 }),
      }),
    );
    await runUntil(env.client, 'progressive', (pods, ds) =>
      ds.status?.numberAvailable === 2 && pods.length === 2 ? pods : undefined,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(nodesOf(await podsOf(env.client, 'progressive'))).toEqual(['n1', 'n2']);
    await patchRolling('progressive', { partition: 0 });
    await allAvailable('progressive');
  });

  it('never lets a node that stopped fitting hold the rollout back (#2387)', async () => {
    await create(daemonSet('pruned', { template: template('pruned', 'busybox:v1') }));
    const before = byNode(await allAvailable('pruned'));
    // a NoSchedule taint added later: n4 keeps its pod but no longer takes part
    await env.client.mergePatch(Resources.Node, undefined, 'n4', {
      spec: { taints: [{ key: 'drain', effect: 'NoSchedule' }] },
    });
    await setImage('pruned', 'busybox:v2');
    const pods = await runUntil(env.client, 'pruned', (pods, ds) =>
      ds.status?.updatedNumberScheduled === 3 && ds.status.desiredNumberScheduled === 3 && pods.every(ready)
        ? byNode(pods)
        : undefined,
    );
    expect(['n1', 'n2', 'n3'].map((n) => imageOf(pods[n]!))).toEqual([
      'busybox:v2',
      'busybox:v2',
      'busybox:v2',
    ]);
    expect(pods.n4?.metadata?.uid).toBe(before.n4?.metadata?.uid);
    expect((await getDs(env.client, 'pruned')).status?.numberMisscheduled).toBe(1);
    await env.client.mergePatch(Resources.Node, undefined, 'n4', { spec: { taints: null } });
  });
});
