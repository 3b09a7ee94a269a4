import { KruiseResources } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  getSet,
  observedStatus,
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
const uidOf = (pods: Pod[]) => Object.fromEntries(pods.map((p) => [p.metadata!.name!, p.metadata!.uid]));

/** Creates a set and runs it until all its replicas are ready. */
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

const setImage = (name: string, img: string) =>
  env.client.mergePatch(KruiseResources.StatefulSet, 'default', name, {
    spec: { template: { spec: { containers: [{ name: 'main', image: img }] } } },
  });

describe('Advanced StatefulSet rolling update', () => {
  it('InPlaceIfPossible updates the image in place, highest ordinal first, keeping every pod', async () => {
    const { client } = env;
    const before = await readySet('inplace', {
      replicas: 3,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible' } },
      template: {
        metadata: { labels: { app: 'inplace' } },
        spec: {
          readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
          containers: [{ name: 'main', image: 'busybox:v1' }],
        },
      },
    });
    await setImage('inplace', 'busybox:v2');
    // the first pod to change is the highest ordinal
    const first = await eventually(async () =>
      (await podsOf(client, 'inplace')).find((p) => image(p) === 'busybox:v2'),
    );
    expect(first.metadata?.name).toBe('inplace-2');
    const done = await runSetUntil(client, 'inplace', async () => {
      const s = await observedStatus(client, 'inplace');
      return (
        s?.updatedReplicas === 3 && s.updatedReadyReplicas === 3 && s.currentRevision === s.updateRevision
      );
    });
    expect(done).toBe(true);
    const after = await podsOf(client, 'inplace');
    expect(after.map(image)).toEqual(['busybox:v2', 'busybox:v2', 'busybox:v2']);
    expect(uidOf(after)).toEqual(uidOf(before));
  });

  it('ReCreate replaces pods, and partition keeps that many (counted in update order) at the current revision', async () => {
    const { client } = env;
    const before = await readySet('recreate', {
      replicas: 3,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } },
    });
    await setImage('recreate', 'busybox:v2');
    await runSetUntil(client, 'recreate', async () => {
      const s = await observedStatus(client, 'recreate');
      return s?.updatedReplicas === 2 && s.readyReplicas === 3;
    });
    const after = await podsOf(client, 'recreate');
    expect(after.map(image)).toEqual(['busybox:v1', 'busybox:v2', 'busybox:v2']);
    expect(after[0]!.metadata?.uid).toBe(before[0]!.metadata?.uid);
    expect(after[2]!.metadata?.uid).not.toBe(before[2]!.metadata?.uid);
    const s = (await getSet(client, 'recreate')).status!;
    expect(s.currentRevision).not.toBe(s.updateRevision);
  });

  it('a rollout stuck on a broken revision under OrderedReady goes on once the template is fixed, without deleting the broken pod by hand', async () => {
    const { client } = env;
    await readySet('stuck', { replicas: 3 });
    await setImage('stuck', 'busybox:broken');
    // the broken pod runs and never gets ready: the rollout stops there, as a StatefulSet's does
    await runSetUntil(client, 'stuck', async () => {
      const s = await observedStatus(client, 'stuck');
      const broken = (await podsOf(client, 'stuck')).find((p) => image(p) === 'busybox:broken');
      return s?.updatedReplicas === 1 && s.readyReplicas === 2 && broken?.status?.phase === 'Running';
    });
    expect((await podsOf(client, 'stuck')).map(image)).toEqual([
      'busybox:v1',
      'busybox:v1',
      'busybox:broken',
    ]);
    // fixed (a third image): the broken pod is replaced although it never became ready
    await setImage('stuck', 'busybox:v3');
    await runSetUntil(client, 'stuck', async () => {
      const s = await observedStatus(client, 'stuck');
      return s?.updatedReplicas === 3 && s.readyReplicas === 3;
    });
    expect((await podsOf(client, 'stuck')).map(image)).toEqual(['busybox:v3', 'busybox:v3', 'busybox:v3']);
  });
});
