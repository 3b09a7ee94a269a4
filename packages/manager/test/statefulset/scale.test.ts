import { KruiseResources } from '@kruise/api';
import { Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  getSet,
  observedStatus,
  podNames,
  podsOf,
  runPod,
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

describe('Advanced StatefulSet scaling', () => {
  it('OrderedReady creates pods one by one, each after its predecessor is running and ready, with their identity', async () => {
    const { client } = env;
    await client.create(KruiseResources.StatefulSet, statefulSet('ordered', { replicas: 3 }));
    // Nothing runs the pods: only pod 0 exists, however long one waits for pod 1 (a marker: the
    // set's status reports the round that created pod 0).
    await eventually(async () => (await podNames(client, 'ordered')).length === 1);
    await eventually(async () => (await getSet(client, 'ordered')).status?.replicas === 1);
    expect(await podNames(client, 'ordered')).toEqual(['ordered-0']);
    const [first] = await podsOf(client, 'ordered');
    expect(first!.spec).toMatchObject({ hostname: 'ordered-0', subdomain: 'ordered' });
    expect(first!.metadata?.labels).toMatchObject({
      'statefulset.kubernetes.io/pod-name': 'ordered-0',
      'apps.kubernetes.io/pod-index': '0',
      'lifecycle.apps.kruise.io/state': 'Normal',
    });
    expect(first!.metadata?.labels?.['controller-revision-hash']).toMatch(/^ordered-[a-z0-9]+$/);
    expect(first!.metadata?.ownerReferences).toEqual([
      expect.objectContaining({
        apiVersion: 'apps.kruise.io/v1beta1',
        kind: 'StatefulSet',
        name: 'ordered',
        controller: true,
      }),
    ]);
    // Each pod is created once its predecessor runs.
    const created: string[] = [];
    await runSetUntil(client, 'ordered', async () => {
      for (const p of await podsOf(client, 'ordered'))
        if (!created.includes(p.metadata!.name!)) created.push(p.metadata!.name!);
      const s = (await getSet(client, 'ordered')).status;
      return s?.readyReplicas === 3 && s.currentReplicas === 3 && s.updatedReplicas === 3;
    });
    expect(created).toEqual(['ordered-0', 'ordered-1', 'ordered-2']);
    const status = (await getSet(client, 'ordered')).status!;
    expect(status).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      labelSelector: 'app=ordered',
    });
    expect(status.currentRevision).toBe(status.updateRevision);
  });

  it('scales down highest ordinal first, one at a time under OrderedReady', async () => {
    const { client } = env;
    await client.mergePatch(KruiseResources.StatefulSet, 'default', 'ordered', { spec: { replicas: 1 } });
    // the first deletion: ordered-2 only
    await eventually(async () =>
      (await podsOf(client, 'ordered', true)).some((p) => p.metadata?.deletionTimestamp),
    );
    const deleting = (await podsOf(client, 'ordered', true)).filter((p) => p.metadata?.deletionTimestamp);
    expect(deleting.map((p) => p.metadata?.name)).toEqual(['ordered-2']);
    await runSetUntil(
      client,
      'ordered',
      async () =>
        (await podNames(client, 'ordered')).length === 1 &&
        (await podsOf(client, 'ordered', true)).length === 1,
    );
    expect(await podNames(client, 'ordered')).toEqual(['ordered-0']);
  });

  it('Parallel creates every pod at once; reserveOrdinals skips ordinals and scaling to 0 and back gives exactly the ordinals the spec names', async () => {
    const { client } = env;
    await client.create(
      KruiseResources.StatefulSet,
      statefulSet('par', { replicas: 4, podManagementPolicy: 'Parallel', reserveOrdinals: [1, '3-4'] }),
    );
    await eventually(async () => (await podNames(client, 'par')).length === 4);
    expect(await podNames(client, 'par')).toEqual(['par-0', 'par-2', 'par-5', 'par-6']);
    await runSetUntil(client, 'par', async () => (await getSet(client, 'par')).status?.readyReplicas === 4);
    await client.mergePatch(KruiseResources.StatefulSet, 'default', 'par', { spec: { replicas: 0 } });
    await runSetUntil(client, 'par', async () => (await podsOf(client, 'par', true)).length === 0);
    await client.mergePatch(KruiseResources.StatefulSet, 'default', 'par', { spec: { replicas: 3 } });
    await runSetUntil(client, 'par', async () => (await observedStatus(client, 'par'))?.readyReplicas === 3);
    expect(await podNames(client, 'par')).toEqual(['par-0', 'par-2', 'par-5']);
    // reserving a running pod's ordinal replaces it by the next free one
    await client.mergePatch(KruiseResources.StatefulSet, 'default', 'par', {
      spec: { reserveOrdinals: [1, '3-4', 2] },
    });
    await runSetUntil(client, 'par', async () => {
      const names = await podNames(client, 'par');
      return (
        names.join() === 'par-0,par-5,par-6' && (await getSet(client, 'par')).status?.readyReplicas === 3
      );
    });
  });

  it('Parallel with scaleStrategy.maxUnavailable keeps at most that many pods not ready while it scales up', async () => {
    const { client } = env;
    await client.create(
      KruiseResources.StatefulSet,
      statefulSet('bounded', {
        replicas: 6,
        podManagementPolicy: 'Parallel',
        scaleStrategy: { maxUnavailable: 2 },
      }),
    );
    const isReady = (p: Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    let most = 0;
    for (;;) {
      // the controller has acted on every pod change so far once its status counts each pod and each ready one
      const pods = await eventually(async () => {
        const [s, p] = await Promise.all([observedStatus(client, 'bounded'), podsOf(client, 'bounded')]);
        return s?.replicas === p.length && s.readyReplicas === p.filter(isReady).length && p.length > 0
          ? p
          : undefined;
      });
      const notReady = pods.filter((p) => !isReady(p));
      most = Math.max(most, notReady.length);
      expect(notReady.length, pods.map((p) => p.metadata?.name).join()).toBeLessThanOrEqual(2);
      if (pods.length === 6 && notReady.length === 0) break;
      // one pod at a time becomes ready: each frees one place for a new pod
      await runPod(client, notReady[0]!);
    }
    expect(most).toBe(2);
  });

  it('recreates a pod that Failed or Succeeded', async () => {
    const { client } = env;
    const before = (await podsOf(client, 'ordered'))[0]!;
    await client.mergePatchStatus(Resources.Pod, 'default', 'ordered-0', { status: { phase: 'Failed' } });
    const replaced = await runSetUntil(client, 'ordered', async () => {
      const now = (await podsOf(client, 'ordered'))[0] as Pod | undefined;
      return now && now.metadata?.uid !== before.metadata?.uid && now.status?.phase === 'Running'
        ? now
        : undefined;
    });
    expect(replaced.metadata?.name).toBe('ordered-0');
    await runPod(client, replaced);
  });
});
