import { KruiseResources } from '@kruise/api';
import { type KubeClient, Resources } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import {
  cloneSet,
  eventsOf,
  eventually,
  getCloneSet,
  image,
  podsOf,
  runUntil,
  setImage,
  statusWhen,
  useCloneSetEnv,
} from './harness.ts';

let client: KubeClient;
useCloneSetEnv([], (env) => {
  client = env.client;
});

describe('CloneSet controller: scale', () => {
  it('creates replicas named <cloneset>-<instance id> with revision labels, the readiness gate and lifecycle, then reports status', async () => {
    await client.create(KruiseResources.CloneSet, cloneSet('scale', { replicas: 3 }));
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
        expect.objectContaining({
          kind: 'CloneSet',
          name: 'scale',
          controller: true,
          blockOwnerDeletion: true,
        }),
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
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'scale', { spec: { replicas: 1 } });
    const status = await runUntil(client, 'scale', async () => {
      const s = (await getCloneSet(client, 'scale')).status;
      return s?.replicas === 1 && (await podsOf(client, 'scale')).length === 1 ? s : undefined;
    });
    expect(status.availableReplicas).toBe(1);
  });
});

describe('CloneSet controller: update', () => {
  it('ReCreate replaces every pod with one of the new revision and moves currentRevision', async () => {
    await client.create(KruiseResources.CloneSet, cloneSet('recreate', { replicas: 2 }));
    const before = await runUntil(client, 'recreate', async (pods) =>
      pods.length === 2 && (await getCloneSet(client, 'recreate')).status?.availableReplicas === 2
        ? pods
        : undefined,
    );
    const oldRevision = (await getCloneSet(client, 'recreate')).status!.updateRevision!;
    await setImage(client, 'recreate', 'busybox:v2');
    const status = await statusWhen(
      client,
      'recreate',
      (s, pods) =>
        pods.length === 2 && s.updatedAvailableReplicas === 2 && s.currentRevision === s.updateRevision,
    );
    expect(status.updateRevision).not.toBe(oldRevision);
    const after = await podsOf(client, 'recreate');
    expect(after.map(image)).toEqual(['busybox:v2', 'busybox:v2']);
    const uids = new Set(before.map((p) => p.metadata!.uid));
    for (const p of after) expect(uids.has(p.metadata!.uid)).toBe(false);
    const events = await eventsOf(client, 'recreate');
    expect(events).toContainEqual(
      expect.stringMatching(
        /^Normal SuccessfulUpdatePodReCreate successfully patch pod recreate-\w+ specified-delete for update\(revision recreate-\w+\)$/,
      ),
    );
    expect(events).toContainEqual(
      expect.stringMatching(/^Normal SuccessfulDelete succeed to delete pod recreate-\w+$/),
    );
  });

  it('InPlaceIfPossible changes the image of the same pods (UID kept) through InPlaceUpdateReady and the Updating state', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('inplace', { replicas: 2, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } }),
    );
    const before = await runUntil(client, 'inplace', async (pods) =>
      pods.length === 2 && (await getCloneSet(client, 'inplace')).status?.availableReplicas === 2
        ? pods
        : undefined,
    );
    await setImage(client, 'inplace', 'busybox:v2');
    // the first pod updated (maxUnavailable 1) is held not-ready while "kubelet" has not restarted it
    const updating = await eventually(async () => {
      const pods = await podsOf(client, 'inplace');
      return pods.find((p) => image(p) === 'busybox:v2');
    });
    expect(updating.metadata!.labels!['lifecycle.apps.kruise.io/state']).toBe('Updating');
    const condition = updating.status!.conditions!.find((c) => c.type === 'InPlaceUpdateReady');
    expect(condition).toMatchObject({ status: 'False', reason: 'StartInPlaceUpdate' });
    const state = JSON.parse(updating.metadata!.annotations!['apps.kruise.io/inplace-update-state']!);
    expect(state).toMatchObject({
      revision: updating.metadata!.labels!['controller-revision-hash'],
      updateImages: true,
      lastContainerStatuses: { main: { imageID: 'sha256:busybox:v1' } },
    });
    expect((await podsOf(client, 'inplace')).filter((p) => image(p) === 'busybox:v2')).toHaveLength(1);

    const status = await runUntil(client, 'inplace', async (pods) => {
      const s = (await getCloneSet(client, 'inplace')).status;
      return pods.every((p) => image(p) === 'busybox:v2') && s?.updatedAvailableReplicas === 2
        ? s
        : undefined;
    });
    expect(status.currentRevision).toBe(status.updateRevision);
    const after = await podsOf(client, 'inplace');
    expect(after.map((p) => p.metadata!.uid).sort()).toEqual(before.map((p) => p.metadata!.uid).sort());
    for (const p of after) {
      expect(p.metadata!.labels!['lifecycle.apps.kruise.io/state']).toBe('Normal');
      expect(p.status!.conditions!.find((c) => c.type === 'InPlaceUpdateReady')?.status).toBe('True');
    }
    expect(await eventsOf(client, 'inplace')).toContainEqual(
      expect.stringMatching(
        /^Normal SuccessfulUpdatePodInPlace successfully update pod inplace-\w+ in-place\(revision inplace-\w+\)$/,
      ),
    );
  });

  it('partition keeps that many pods at the old revision; expectedUpdatedReplicas and Progressing say so', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('canary', {
        replicas: 3,
        progressDeadlineSeconds: 600,
        updateStrategy: { type: 'InPlaceIfPossible', partition: 2 },
      }),
    );
    await runUntil(client, 'canary', async (pods) =>
      pods.length === 3 && (await getCloneSet(client, 'canary')).status?.availableReplicas === 3
        ? pods
        : undefined,
    );
    expect((await getCloneSet(client, 'canary')).status!.conditions).toContainEqual(
      expect.objectContaining({
        type: 'Progressing',
        status: 'True',
        reason: 'CloneSetAvailable',
        message: 'CloneSet is available',
      }),
    );
    await setImage(client, 'canary', 'busybox:v2');
    const status = await runUntil(client, 'canary', async () => {
      const s = (await getCloneSet(client, 'canary')).status;
      return s?.updatedAvailableReplicas === 1 && s.availableReplicas === 3 ? s : undefined;
    });
    expect(status.expectedUpdatedReplicas).toBe(1);
    expect(status.updatedReplicas).toBe(1);
    expect(status.currentRevision).not.toBe(status.updateRevision);
    expect(status.conditions).toContainEqual(
      expect.objectContaining({
        type: 'Progressing',
        status: 'True',
        reason: 'ProgressPartitionAvailable',
        message: 'CloneSet has been paused due to partition ready',
      }),
    );
    expect((await podsOf(client, 'canary')).map(image).sort()).toEqual([
      'busybox:v1',
      'busybox:v1',
      'busybox:v2',
    ]);
  });
});
