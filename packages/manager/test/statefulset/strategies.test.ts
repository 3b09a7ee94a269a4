import { KruiseResources } from '@kruise/api';
import { Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPod } from '../cloneset/harness.ts';
import {
  eventually,
  getSet,
  observedStatus,
  podNames,
  podsOf,
  runSetUntil,
  type StatefulSetEnv,
  startStatefulSetEnv,
  statefulSet,
} from './harness.ts';

let env: StatefulSetEnv;
beforeAll(async () => {
  env = await startStatefulSetEnv();
});
afterAll(() => env?.stop());

const image = (p: Pod) => p.spec?.containers?.[0]?.image;
const setImage = (name: string, img: string, extra: Record<string, unknown> = {}) =>
  env.client.mergePatch(KruiseResources.StatefulSet, 'default', name, {
    spec: { ...extra, template: { spec: { containers: [{ name: 'main', image: img }] } } },
  });

async function readySet(name: string, spec: Record<string, unknown>) {
  const { client } = env;
  await client.create(KruiseResources.StatefulSet, statefulSet(name, spec));
  await runSetUntil(
    client,
    name,
    async () => (await observedStatus(client, name))?.readyReplicas === (spec.replicas ?? 1),
  );
  return podsOf(client, name);
}

describe('Advanced StatefulSet strategies', () => {
  it('a preDelete hook holds a pod in PreparingDelete until the hook label goes', async () => {
    const { client } = env;
    await readySet('hooked', {
      replicas: 2,
      lifecycle: { preDelete: { labelsHandler: { 'example.com/drain': 'true' } } },
      template: {
        metadata: { labels: { app: 'hooked', 'example.com/drain': 'true' } },
        spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
      },
    });
    await client.mergePatch(KruiseResources.StatefulSet, 'default', 'hooked', { spec: { replicas: 1 } });
    await eventually(
      async () =>
        (await podsOf(client, 'hooked'))[1]?.metadata?.labels?.['lifecycle.apps.kruise.io/state'] ===
        'PreparingDelete',
    );
    // held: the status round after the state change still counts the pod, and it is not deleted
    await eventually(async () => (await observedStatus(client, 'hooked'))?.replicas === 2);
    expect((await podsOf(client, 'hooked', true)).every((p) => !p.metadata?.deletionTimestamp)).toBe(true);
    await client.mergePatch(Resources.Pod, 'default', 'hooked-1', {
      metadata: { labels: { 'example.com/drain': null } },
    });
    await runSetUntil(client, 'hooked', async () => (await podsOf(client, 'hooked', true)).length === 1);
    expect(await podNames(client, 'hooked')).toEqual(['hooked-0']);
  });

  it('specified-delete pods are recreated first, whatever the partition', async () => {
    const { client } = env;
    const before = await readySet('marked', {
      replicas: 3,
      updateStrategy: { rollingUpdate: { partition: 3 } },
    });
    await client.mergePatch(Resources.Pod, 'default', 'marked-0', {
      metadata: { labels: { 'apps.kruise.io/specified-delete': 'true' } },
    });
    const after = await runSetUntil(client, 'marked', async () => {
      const pods = await podsOf(client, 'marked');
      return pods.length === 3 &&
        pods[0]!.metadata?.uid !== before[0]!.metadata?.uid &&
        pods[0]!.status?.phase === 'Running'
        ? pods
        : undefined;
    });
    expect(after[1]!.metadata?.uid).toBe(before[1]!.metadata?.uid);
    expect(after[0]!.metadata?.labels?.['apps.kruise.io/specified-delete']).toBeUndefined();
  });

  it('unorderedUpdate (Parallel) updates by priority: the weightiest pods first', async () => {
    const { client } = env;
    await readySet('prio', { replicas: 3, podManagementPolicy: 'Parallel' });
    // weights on the pods themselves: prio-0 is the most important to update first
    const tiers: [string, string][] = [
      ['prio-0', 'gold'],
      ['prio-1', 'bronze'],
      ['prio-2', 'silver'],
    ];
    for (const [name, tier] of tiers)
      await client.mergePatch(Resources.Pod, 'default', name, { metadata: { labels: { tier } } });
    await setImage('prio', 'busybox:v2', {
      updateStrategy: {
        rollingUpdate: {
          maxUnavailable: 1,
          unorderedUpdate: {
            priorityStrategy: {
              weightPriority: [
                { weight: 100, matchSelector: { matchLabels: { tier: 'gold' } } },
                { weight: 50, matchSelector: { matchLabels: { tier: 'silver' } } },
              ],
            },
          },
        },
      },
    });
    const order: string[] = [];
    await runSetUntil(client, 'prio', async () => {
      for (const p of await podsOf(client, 'prio'))
        if (image(p) === 'busybox:v2' && !order.includes(p.metadata!.name!)) order.push(p.metadata!.name!);
      return (await observedStatus(client, 'prio'))?.updatedReplicas === 3 && order.length === 3;
    });
    expect(order).toEqual(['prio-0', 'prio-2', 'prio-1']);
  });

  it('minReadySeconds: a pod counts as available only after being ready that long, and the update waits for it', async () => {
    const { client } = env;
    const before = await readySet('slow', {
      replicas: 2,
      updateStrategy: { rollingUpdate: { minReadySeconds: 2 } },
    });
    await eventually(async () => (await observedStatus(client, 'slow'))?.availableReplicas === 2, 10_000);
    await setImage('slow', 'busybox:v2');
    const firstReady = await runSetUntil(client, 'slow', async () => {
      const pods = await podsOf(client, 'slow');
      const ready = pods.find(
        (p) =>
          image(p) === 'busybox:v2' &&
          p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready
        ? Date.parse(ready.status!.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime!)
        : undefined;
    });
    // the second pod is replaced only once the first has been ready for minReadySeconds
    const replacedAt = await runSetUntil(client, 'slow', async () => {
      const p0 = (await podsOf(client, 'slow')).find((p) => p.metadata?.name === 'slow-0');
      return p0 && p0.metadata?.uid !== before[0]!.metadata?.uid
        ? Date.parse(p0.metadata!.creationTimestamp!)
        : undefined;
    });
    // times are whole seconds
    expect(replacedAt - firstReady).toBeGreaterThanOrEqual(2000 - 1000);
    await runSetUntil(
      client,
      'slow',
      async () => (await observedStatus(client, 'slow'))?.updatedReplicas === 2,
    );
  });

  it('adopts pods of its name and selector that no controller owns, and releases pods that leave its selector', async () => {
    const { client } = env;
    await client.create(Resources.Pod, {
      metadata: { name: 'adopt-0', namespace: 'default', labels: { app: 'adopt' } },
      spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
    });
    await client.create(KruiseResources.StatefulSet, statefulSet('adopt', { replicas: 1 }));
    const set = await getSet(client, 'adopt');
    const adopted = await eventually(async () => {
      const p = (await client.get(Resources.Pod, 'default', 'adopt-0')) as unknown as Pod;
      return p.metadata?.ownerReferences?.some((r) => r.uid === set.metadata?.uid) ? p : undefined;
    });
    await runPod(client, adopted);
    // Played as kubelet until Ready: the adopted pod may be replaced (it has no revision) meanwhile.
    await runSetUntil(
      client,
      'adopt',
      async () => (await observedStatus(client, 'adopt'))?.readyReplicas === 1,
    );
    await client.mergePatch(Resources.Pod, 'default', 'adopt-0', {
      metadata: { labels: { app: 'elsewhere' } },
    });
    await eventually(async () => {
      const p = (await client.get(Resources.Pod, 'default', 'adopt-0')) as unknown as Pod;
      return !p.metadata?.ownerReferences?.length;
    });
  });
});
