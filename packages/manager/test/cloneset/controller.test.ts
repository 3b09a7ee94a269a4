import { type KubeClient, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../env.ts';
import { type CloneSetEnv, cloneSet, getCloneSet, podsOf, runUntil, startCloneSetEnv } from './harness.ts';

let env: CloneSetEnv;
let client: KubeClient;
beforeAll(async () => {
  env = await startCloneSetEnv();
  client = env.client;
});
afterAll(() => env?.stop());

describe('CloneSet controller: scale', () => {
  it('creates replicas named <cloneset>-<instance id> with revision labels, the readiness gate and lifecycle, then reports status', async () => {
    await client.create(Resources.CloneSet, cloneSet('scale', { replicas: 3 }));
    const pods = await eventually(async () => {
      const p = await podsOf(client, 'scale');
      return p.length === 3 ? p : undefined;
    });
    const cs = await getCloneSet(client, 'scale');
    for (const p of pods) {
      const id = p.metadata!.labels!['apps.kruise.io/cloneset-instance-id']!;
      expect(p.metadata!.name).toBe(`scale-${id}`);
      expect(id).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(p.metadata!.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'CloneSet', name: 'scale', controller: true, blockOwnerDeletion: true }),
      ]);
      expect(p.spec!.readinessGates?.map((g) => g.conditionType)).toContain('InPlaceUpdateReady');
    }
    const status = await runUntil(client, 'scale', async () => {
      const s = (await getCloneSet(client, 'scale')).status;
      return s?.availableReplicas === 3 ? s : undefined;
    });
    const revision = status.updateRevision!;
    expect(revision).toMatch(/^scale-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(status).toMatchObject({
      observedGeneration: cs.metadata!.generation,
      replicas: 3,
      readyReplicas: 3,
      updatedReplicas: 3,
      updatedReadyReplicas: 3,
      updatedAvailableReplicas: 3,
      expectedUpdatedReplicas: 3,
      currentRevision: revision,
      collisionCount: 0,
      labelSelector: 'app=scale',
    });
    const after = await podsOf(client, 'scale');
    for (const p of after) {
      expect(p.metadata!.labels).toMatchObject({
        'controller-revision-hash': revision,
        'pod-template-hash': revision.slice('scale-'.length),
        'lifecycle.apps.kruise.io/state': 'Normal',
      });
      expect(p.status!.conditions?.find((c) => c.type === 'InPlaceUpdateReady')?.status).toBe('True');
    }
    const revisions = await client.list(Resources.ControllerRevision, { namespace: 'default' });
    expect(revisions.items.map((r) => r.metadata?.name)).toContain(revision);
  });

  it('scales in to the replicas asked for', async () => {
    await client.mergePatch(Resources.CloneSet, 'default', 'scale', { spec: { replicas: 1 } });
    const status = await runUntil(client, 'scale', async () => {
      const s = (await getCloneSet(client, 'scale')).status;
      return s?.replicas === 1 && (await podsOf(client, 'scale')).length === 1 ? s : undefined;
    });
    expect(status.availableReplicas).toBe(1);
  });
});
