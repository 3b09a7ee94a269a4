import { KruiseResources } from '@kruise/api';
import { type KubeClient, Resources } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import {
  cloneSet,
  eventsOf,
  eventually,
  getCloneSet,
  setImage,
  statusWhen,
  useCloneSetEnv,
} from './harness.ts';

let client: KubeClient;
useCloneSetEnv(['--feature-gates=PreDownloadImageForInPlaceUpdate=true'], (env) => {
  client = env.client;
});

const revision = (name: string) => client.get(Resources.ControllerRevision, 'default', name);
const jobsOf = async (owner: string) =>
  (await client.list(KruiseResources.ImagePullJob, { namespace: 'default' })).items.filter((j) =>
    j.metadata?.ownerReferences?.some((r: { name: string }) => r.name === owner),
  );

describe('CloneSet image pre-download (gate PreDownloadImageForInPlaceUpdate)', () => {
  it('creates an ImagePullJob for the new image of an in-place update and deletes it once all pods are updated', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('warm', {
        replicas: 4,
        updateStrategy: { type: 'InPlaceIfPossible', partition: 3 },
        template: {
          metadata: { labels: { app: 'warm' } },
          spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
        },
      }),
    );
    await statusWhen(client, 'warm', (s) => s.availableReplicas === 4);
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'warm', {
      metadata: { annotations: { 'apps.kruise.io/image-predownload-parallelism': '2' } },
    });
    await setImage(client, 'warm', 'busybox:v2');
    const update = (
      await eventually(async () => {
        const s = (await getCloneSet(client, 'warm')).status;
        return s && s.updateRevision !== s.currentRevision ? s : undefined;
      })
    ).updateRevision!;
    const [job] = await eventually(async () => {
      const j = await jobsOf('warm');
      return j.length ? j : undefined;
    });
    expect(job!.metadata!.name).toBe(`${update}-main`);
    expect(job!.spec).toMatchObject({
      image: 'busybox:v2',
      parallelism: 2,
      pullPolicy: { backoffLimit: 1, timeoutSeconds: 300 },
      completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 600 },
    });
    expect(job!.spec.podSelector.matchExpressions).toContainEqual({
      key: 'controller-revision-hash',
      operator: 'NotIn',
      values: [update, update.slice('warm-'.length)],
    });
    await eventually(
      async () =>
        (await revision(update)).metadata?.labels?.['apps.kruise.io/pre-predownload-created'] === 'true',
    );
    expect(await eventsOf(client, 'warm')).toContain(
      `Normal CreatedImagePullJob created ImagePullJob ${job!.metadata!.name} for image: busybox:v2`,
    );
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'warm', {
      spec: { updateStrategy: { partition: 0 } },
    });
    await statusWhen(
      client,
      'warm',
      (s) => s.updatedAvailableReplicas === 4 && s.currentRevision === s.updateRevision,
    );
    await eventually(async () => (await jobsOf('warm')).length === 0);
  });

  it('marks the revision ignored for ReCreate (no job)', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('cold', { replicas: 4, updateStrategy: { partition: 3 } }),
    );
    await statusWhen(client, 'cold', (s) => s.availableReplicas === 4);
    await setImage(client, 'cold', 'busybox:v2');
    const update = (
      await eventually(async () => {
        const s = (await getCloneSet(client, 'cold')).status;
        return s && s.updateRevision !== s.currentRevision ? s : undefined;
      })
    ).updateRevision!;
    await eventually(
      async () =>
        (await revision(update)).metadata?.labels?.['apps.kruise.io/image-predownload-ignored'] === 'true',
    );
    expect(await jobsOf('cold')).toEqual([]);
  });
});
