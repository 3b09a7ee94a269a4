import { KruiseResources } from '@kruise/api';
import { type KubeClient, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { trimmedPods } from '../../src/informers.ts';
import { eventually } from '../env.ts';
import {
  available,
  cloneSet,
  getCloneSet,
  image,
  podsOf,
  reconciled,
  runUntil,
  setImage,
  statusWhen,
  useCloneSetEnv,
} from './harness.ts';

/**
 * Which pods an update takes first (priority and scatter strategies), InPlaceOnly meeting a change
 * it cannot make in place, and maxSurge during an in-place update — through the controller, with
 * the test playing kubelet.
 */
let client: KubeClient;
const env = useCloneSetEnv([], (started) => {
  client = started.client;
});

/** Generous: the conditions hold within a second on an idle machine, far later on a loaded one. */
const WAIT_MS = 30_000;
const ready = (name: string, replicas: number) => available(client, name, replicas, WAIT_MS);
/** Labels a pod and waits until the manager's pod cache shows it (the order is computed from that cache). */
const label = async (pod: Pod, labels: Record<string, string>) => {
  const name = pod.metadata!.name!;
  await client.mergePatch(Resources.Pod, 'default', name, { metadata: { labels } });
  const cache = trimmedPods(env.app.manager);
  await eventually(
    () => Object.entries(labels).every(([k, v]) => cache.get(`default/${name}`)?.metadata?.labels?.[k] === v),
    WAIT_MS,
  );
};
const updated = async (name: string) => (await podsOf(client, name)).filter((p) => image(p) === 'busybox:v2');
/**
 * Waits until `count` pods run v2 and every pod is Ready (while the test plays kubelet), then until
 * the controller has seen that: no other pod follows.
 */
const settledAt = async (name: string, count: number) => {
  await runUntil(
    client,
    name,
    (pods) =>
      pods.filter((p) => image(p) === 'busybox:v2').length >= count &&
      pods.every((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')),
    WAIT_MS,
  );
  await reconciled(env, name);
  const pods = await updated(name);
  expect(pods).toHaveLength(count);
  return pods;
};

describe('CloneSet update order', () => {
  it('scatterStrategy spreads the pods carrying the label over the update order', async () => {
    // six pods, three of them zone=a; a weight puts those three first, so that without scatter one
    // round of three updates would take exactly them
    const strategy = (scatter: boolean) => ({
      type: 'InPlaceIfPossible',
      partition: 3,
      maxUnavailable: 3,
      priorityStrategy: { weightPriority: [{ weight: 10, matchSelector: { matchLabels: { zone: 'a' } } }] },
      ...(scatter ? { scatterStrategy: [{ key: 'zone', value: 'a' }] } : {}),
    });
    for (const [name, scatter] of [
      ['spread', true],
      ['bunched', false],
    ] as const) {
      await client.create(
        KruiseResources.CloneSet,
        cloneSet(name, { replicas: 6, updateStrategy: strategy(scatter) }),
      );
      await ready(name, 6);
      for (const p of (await podsOf(client, name)).slice(0, 3)) await label(p, { zone: 'a' });
      await setImage(client, name, 'busybox:v2');
    }
    const zoneA = (pods: Pod[]) => pods.filter((p) => p.metadata?.labels?.zone === 'a').length;
    // upstream's order for [a a a b b b]: a b b a b a — the round of three takes one zone=a pod
    expect(zoneA(await settledAt('spread', 3))).toBe(1);
    expect(zoneA(await settledAt('bunched', 3))).toBe(3);
  });

  it('orderPriority takes the first key pods have, larger number first; a lower partition goes on in that order', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('ordered', {
        replicas: 3,
        updateStrategy: {
          type: 'InPlaceIfPossible',
          partition: 3,
          priorityStrategy: { orderPriority: [{ orderedKey: 'rank' }] },
        },
      }),
    );
    await ready('ordered', 3);
    const pods = await podsOf(client, 'ordered');
    for (const [i, rank] of ['rank-1', 'rank-12', 'rank-3'].entries()) await label(pods[i]!, { rank });
    await setImage(client, 'ordered', 'busybox:v2');
    const ranks: string[] = [];
    for (const partition of [2, 1, 0]) {
      await client.mergePatch(KruiseResources.CloneSet, 'default', 'ordered', {
        spec: { updateStrategy: { partition } },
      });
      const now = await settledAt('ordered', 3 - partition);
      ranks.push(...now.map((p) => p.metadata!.labels!.rank!).filter((r) => !ranks.includes(r)));
    }
    expect(ranks).toEqual(['rank-12', 'rank-3', 'rank-1']);
    // in place: the same three pods
    expect((await podsOf(client, 'ordered')).map((p) => p.metadata!.uid).sort()).toEqual(
      pods.map((p) => p.metadata!.uid).sort(),
    );
  });
});

describe('CloneSet update types', () => {
  it('InPlaceOnly with a pending change that cannot be made in place: FailedUpdate with upstream’s message, no pod recreated', async () => {
    // an env change waits behind the partition; then the type becomes InPlaceOnly and the partition goes
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('strict', { replicas: 1, updateStrategy: { type: 'InPlaceIfPossible', partition: 1 } }),
    );
    await ready('strict', 1);
    const [before] = await podsOf(client, 'strict');
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'strict', {
      spec: {
        template: {
          spec: { containers: [{ name: 'main', image: 'busybox:v1', env: [{ name: 'A', value: '1' }] }] },
        },
      },
    });
    await statusWhen(client, 'strict', (s) => s.updateRevision !== s.currentRevision, WAIT_MS);
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'strict', {
      spec: { updateStrategy: { type: 'InPlaceOnly', partition: 0 } },
    });
    const failed = await eventually(async () => {
      const cs = await getCloneSet(client, 'strict');
      const c = cs.status?.conditions?.find((x) => x.type === 'FailedUpdate');
      return cs.status?.observedGeneration === cs.metadata?.generation && c ? c : undefined;
    }, WAIT_MS);
    expect(failed).toMatchObject({
      status: 'True',
      message: `find Pod ${before!.metadata!.name} update strategy is InPlaceOnly but can not update in-place`,
    });
    // the controller has seen the condition it wrote: still no pod recreated
    await reconciled(env, 'strict');
    const [after] = await podsOf(client, 'strict');
    expect(after!.metadata!.uid).toBe(before!.metadata!.uid);
    expect(after!.spec!.containers[0]!.env).toBeUndefined();
    expect((await getCloneSet(client, 'strict')).status).toMatchObject({ updatedReplicas: 0, replicas: 1 });
  });

  it('maxSurge during an in-place update: a new pod first, two pods updated in place, the surplus old pod deleted', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('surged', {
        replicas: 3,
        updateStrategy: { type: 'InPlaceIfPossible', maxSurge: 1, maxUnavailable: 0 },
      }),
    );
    await ready('surged', 3);
    const before = (await podsOf(client, 'surged')).map((p) => p.metadata!.uid!);
    await setImage(client, 'surged', 'busybox:v2');
    // the surge pod comes first, of the new revision; with maxUnavailable 0 no old pod is touched
    // while it is not ready (the test does not run it here)
    const surge = await eventually(async () => {
      const pods = await podsOf(client, 'surged');
      return pods.length === 4 ? pods : undefined;
    }, WAIT_MS);
    const extra = surge.filter((p) => !before.includes(p.metadata!.uid!));
    expect(extra.map(image)).toEqual(['busybox:v2']);
    expect(surge.filter((p) => before.includes(p.metadata!.uid!)).map(image)).toEqual([
      'busybox:v1',
      'busybox:v1',
      'busybox:v1',
    ]);
    const done = await statusWhen(
      client,
      'surged',
      (s, pods) =>
        pods.length === 3 && s.updatedAvailableReplicas === 3 && s.currentRevision === s.updateRevision,
      WAIT_MS,
    );
    expect(done.replicas).toBe(3);
    const after = await podsOf(client, 'surged');
    expect(after.map(image)).toEqual(['busybox:v2', 'busybox:v2', 'busybox:v2']);
    const kept = after.filter((p) => before.includes(p.metadata!.uid!));
    expect(kept).toHaveLength(2);
    expect(after.map((p) => p.metadata!.uid)).toContain(extra[0]!.metadata!.uid);
  });
});
