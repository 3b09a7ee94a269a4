import { KruiseResources } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
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
  env = await startStatefulSetEnv(['--feature-gates=StatefulSetAutoResizePVCGate=true']);
  // a class that lets claims grow, as the resize case needs
  await env.client.create(Resources.StorageClass, {
    metadata: { name: 'growable' },
    provisioner: 'example.com/none',
    allowVolumeExpansion: true,
    volumeBindingMode: 'WaitForFirstConsumer',
  });
});
afterAll(() => env?.stop());

const claim = (name: string, size = '1Gi') => ({
  metadata: { name },
  spec: {
    accessModes: ['ReadWriteOnce'],
    storageClassName: 'growable',
    resources: { requests: { storage: size } },
  },
});

const claimsOf = async (set: string) =>
  (
    (
      await env.client.list(Resources.PersistentVolumeClaim, {
        namespace: 'default',
        labelSelector: `app=${set}`,
      })
    ).items as unknown as PersistentVolumeClaim[]
  ).sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));

describe('Advanced StatefulSet claims', () => {
  it('creates each pod’s claims first, named <template>-<set>-<ordinal>, and points the pod’s volume at them', async () => {
    const { client } = env;
    await client.create(
      KruiseResources.StatefulSet,
      statefulSet('db', {
        replicas: 2,
        podManagementPolicy: 'Parallel',
        volumeClaimTemplates: [claim('data')],
        template: {
          metadata: { labels: { app: 'db' } },
          spec: {
            containers: [
              { name: 'main', image: 'busybox:v1', volumeMounts: [{ name: 'data', mountPath: '/data' }] },
            ],
          },
        },
      }),
    );
    await runSetUntil(client, 'db', async () => (await observedStatus(client, 'db'))?.readyReplicas === 2);
    expect((await claimsOf('db')).map((c) => c.metadata?.name)).toEqual(['data-db-0', 'data-db-1']);
    const pods = await podsOf(client, 'db');
    expect(pods[1]!.spec?.volumes).toContainEqual({
      name: 'data',
      persistentVolumeClaim: { claimName: 'data-db-1' },
    });
    expect((await getSet(client, 'db')).status?.volumeClaims).toEqual([
      { volumeClaimName: 'data', compatibleReplicas: 2, compatibleReadyReplicas: 0 },
    ]);
  });

  it('whenScaled Delete: a scaled-down pod owns its claim (the garbage collector removes it); whenDeleted Delete: the set owns the others', async () => {
    const { client } = env;
    await client.mergePatch(KruiseResources.StatefulSet, 'default', 'db', {
      spec: { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' } },
    });
    const set = await getSet(client, 'db');
    await eventually(async () =>
      (await claimsOf('db')).every((c) =>
        c.metadata?.ownerReferences?.some((r) => r.uid === set.metadata?.uid),
      ),
    );
    await client.mergePatch(KruiseResources.StatefulSet, 'default', 'db', { spec: { replicas: 1 } });
    await runSetUntil(
      client,
      'db',
      async () => (await claimsOf('db')).map((c) => c.metadata?.name).join() === 'data-db-0',
    );
  });

  it('a claim template added to a running set reaches new pods; running pods keep running and the status names them', async () => {
    const { client } = env;
    await client.mergePatch(KruiseResources.StatefulSet, 'default', 'db', {
      spec: { replicas: 2, volumeClaimTemplates: [claim('data'), claim('logs')] },
    });
    const status = await runSetUntil(client, 'db', async () => {
      const s = await observedStatus(client, 'db');
      return s?.readyReplicas === 2 ? s : undefined;
    });
    const pods = await podsOf(client, 'db');
    // db-1 was created after the change; db-0 runs without the new claim, named in the condition
    expect(pods[1]!.spec?.volumes).toContainEqual({
      name: 'logs',
      persistentVolumeClaim: { claimName: 'logs-db-1' },
    });
    expect(pods[0]!.spec?.volumes?.some((v) => v.name === 'logs')).toBe(false);
    expect(status.conditions?.find((c) => c.type === 'PodVolumeClaimsMissing')?.message).toContain(
      'db-0 (logs)',
    );
    expect(status.conditions?.some((c) => c.type === 'FailedUpdatePod')).toBe(false);
  });

  it('a size-only change of a claim template expands existing claims before their pods are updated (OnPodRollingUpdate)', async () => {
    const { client } = env;
    await client.mergePatch(KruiseResources.StatefulSet, 'default', 'db', {
      spec: {
        volumeClaimUpdateStrategy: { type: 'OnPodRollingUpdate' },
        volumeClaimTemplates: [claim('data', '2Gi'), claim('logs')],
        template: {
          spec: {
            containers: [
              { name: 'main', image: 'busybox:v2', volumeMounts: [{ name: 'data', mountPath: '/data' }] },
            ],
          },
        },
      },
    });
    // the storage "driver" (this test) binds each claim with the capacity it asks for
    await runSetUntil(client, 'db', async () => {
      for (const c of await claimsOf('db')) {
        const asked = c.spec?.resources?.requests?.storage;
        if (asked && c.status?.capacity?.storage !== asked)
          await client.mergePatchStatus(Resources.PersistentVolumeClaim, 'default', c.metadata?.name ?? '', {
            status: { phase: 'Bound', capacity: { storage: asked } },
          } as KubeObject);
      }
      const s = await observedStatus(client, 'db');
      return s?.updatedReplicas === 2 && s.readyReplicas === 2;
    });
    const data = (await claimsOf('db')).filter((c) => c.metadata?.name?.startsWith('data-'));
    expect(data.map((c) => c.spec?.resources?.requests?.storage)).toEqual(['2Gi', '2Gi']);
    expect(data[0]!.metadata?.annotations?.['apps.kruise.io/owned-by-asts']).toBe('db');
  });
});
