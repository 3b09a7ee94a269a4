import { KruiseResources } from '@kruise/api';
import { type KubeClient, Resources } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { cloneSet, eventually, podsOf, statusWhen, useCloneSetEnv } from './harness.ts';

let client: KubeClient;
useCloneSetEnv([], (env) => {
  client = env.client;
});

const ID = 'apps.kruise.io/cloneset-instance-id';
const withClaims = (name: string, extra: Record<string, unknown> = {}) =>
  cloneSet(name, {
    replicas: 2,
    volumeClaimTemplates: [
      {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    ],
    ...extra,
  });
const claims = async (app: string) =>
  (
    await client.list(Resources.PersistentVolumeClaim, { namespace: 'default', labelSelector: `app=${app}` })
  ).items
    .filter((c) => !c.metadata?.deletionTimestamp)
    .sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));

describe('CloneSet volumeClaimTemplates', () => {
  it('gives each pod its claims, named <template>-<cloneset>-<instance id>, and mounts them', async () => {
    await client.create(KruiseResources.CloneSet, withClaims('disk'));
    await statusWhen(client, 'disk', (s, pods) => s.availableReplicas === 2 && pods.length === 2);
    const pods = await podsOf(client, 'disk');
    const list = await claims('disk');
    expect(list.map((c) => c.metadata!.name).sort()).toEqual(
      pods.map((p) => `data-disk-${p.metadata!.labels![ID]}`).sort(),
    );
    for (const c of list) {
      expect(c.metadata!.labels).toMatchObject({ app: 'disk', [ID]: expect.any(String) });
      expect(c.metadata!.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'CloneSet', name: 'disk', controller: true }),
      ]);
    }
    for (const p of pods)
      expect(p.spec!.volumes).toContainEqual({
        name: 'data',
        persistentVolumeClaim: { claimName: `data-disk-${p.metadata!.labels![ID]}` },
      });
  });

  it('a deleted pod is replaced under the same instance id, reusing its claim', async () => {
    const [victim] = await podsOf(client, 'disk');
    const id = victim!.metadata!.labels![ID]!;
    const claim = (await claims('disk')).find((c) => c.metadata!.labels![ID] === id)!;
    await client.delete(Resources.Pod, 'default', victim!.metadata!.name!, { gracePeriodSeconds: 0 });
    const replacement = await eventually(async () =>
      (await podsOf(client, 'disk')).find(
        (p) => p.metadata!.labels![ID] === id && p.metadata!.uid !== victim!.metadata!.uid,
      ),
    );
    expect(replacement.metadata!.name).toBe(`disk-${id}`);
    expect((await claims('disk')).find((c) => c.metadata!.labels![ID] === id)!.metadata!.uid).toBe(
      claim.metadata!.uid,
    );
  });

  it('scale-in deletes the pods and their claims', async () => {
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'disk', { spec: { replicas: 1 } });
    await statusWhen(client, 'disk', (s, pods) => s.replicas === 1 && pods.length === 1);
    const [pod] = await podsOf(client, 'disk');
    await eventually(async () => {
      const list = await claims('disk');
      return list.length === 1 && list[0]!.metadata!.labels![ID] === pod!.metadata!.labels![ID];
    });
  });

  it('with disablePVCReuse a replacement gets a new instance id and a new claim', async () => {
    await client.create(
      KruiseResources.CloneSet,
      withClaims('fresh', { replicas: 1, scaleStrategy: { disablePVCReuse: true } }),
    );
    await statusWhen(client, 'fresh', (s, pods) => s.availableReplicas === 1 && pods.length === 1);
    const [victim] = await podsOf(client, 'fresh');
    const id = victim!.metadata!.labels![ID]!;
    await client.delete(Resources.Pod, 'default', victim!.metadata!.name!, { gracePeriodSeconds: 0 });
    const replacement = await eventually(async () =>
      (await podsOf(client, 'fresh')).find((p) => p.metadata!.uid !== victim!.metadata!.uid),
    );
    expect(replacement.metadata!.labels![ID]).not.toBe(id);
    await eventually(async () => {
      const list = await claims('fresh');
      return list.length === 1 && list[0]!.metadata!.labels![ID] === replacement.metadata!.labels![ID];
    });
  });
});
