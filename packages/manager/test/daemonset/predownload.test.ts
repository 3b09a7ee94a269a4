import { type ImagePullJob, KruiseResources } from '@kruise/api';
import { isNotFound, type KubeObject, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonSetEnv, daemonSet, eventually, getDs, runUntil, startDaemonSetEnv } from './harness.ts';

/**
 * Advanced DaemonSet image pre-download (gate PreDownloadImageForDaemonSetUpdate) against the
 * control plane: an ImagePullJob per changed image before the update, the revision labelled, the
 * min-updated-ready-pods annotation honoured (upstream ignores it), the jobs gone once every node
 * runs the new revision.
 */
const NODES = ['n1', 'n2', 'n3', 'n4'];
let env: DaemonSetEnv;
beforeAll(async () => {
  env = await startDaemonSetEnv(NODES, [
    '--feature-gates=ImagePullJobGate=true,PreDownloadImageForDaemonSetUpdate=true',
  ]);
}, 60_000);
afterAll(() => env?.stop());

const inPlace = (
  name: string,
  rollingUpdate: Record<string, unknown>,
  annotations?: Record<string, string>,
) => {
  const ds = daemonSet(name, {
    updateStrategy: {
      type: 'RollingUpdate',
      rollingUpdate: { rollingUpdateType: 'InPlaceIfPossible', ...rollingUpdate },
    },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
        containers: [{ name: 'main', image: 'busybox:v1' }],
      },
    },
  });
  if (annotations) ds.metadata!.annotations = annotations;
  return ds;
};
const jobOf = async (name: string) => {
  const ds = await getDs(env.client, name);
  const revisions = await env.client.list(Resources.ControllerRevision, { namespace: 'default' });
  const update = revisions.items.find(
    (r) =>
      r.metadata?.ownerReferences?.[0]?.uid === ds.metadata?.uid &&
      r.metadata?.labels?.['controller-revision-hash'] === ds.status?.updateRevision,
  );
  if (!update) return undefined;
  const job = await env.client
    .get(KruiseResources.ImagePullJob, 'default', `${update.metadata?.name}-main`)
    .catch((err) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
  return job ? { job: job as ImagePullJob, revision: update } : undefined;
};
const setImage = (name: string, image: string) =>
  env.client.mergePatch(KruiseResources.DaemonSet, 'default', name, {
    spec: { template: { spec: { containers: [{ name: 'main', image }] } } },
  });
/** Ready, with its container running the image its spec names (an in-place update finished). */
const runningItsSpec = (p: Pod) =>
  p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' &&
  p.status.containerStatuses?.[0]?.image === p.spec?.containers[0]?.image;
const available = (name: string) =>
  runUntil(env.client, name, (pods, ds) => (ds.status?.numberAvailable === NODES.length ? pods : undefined));

describe('Advanced DaemonSet image pre-download', () => {
  it('pulls the next image on the nodes not updated yet, labels the revision, and drops the jobs once all are updated', async () => {
    await env.client.create(KruiseResources.DaemonSet, inPlace('pre', { paused: true }) as KubeObject);
    await available('pre');
    await setImage('pre', 'busybox:v2');
    const { job, revision } = await eventually(() => jobOf('pre'));
    const ds = await getDs(env.client, 'pre');
    expect(job.spec).toMatchObject({
      image: 'busybox:v2',
      parallelism: 1,
      completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 600 },
      podSelector: {
        matchLabels: { app: 'pre' },
        matchExpressions: [
          {
            key: 'controller-revision-hash',
            operator: 'NotIn',
            values: [revision.metadata?.name, ds.status?.updateRevision],
          },
        ],
      },
    });
    expect(job.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'DaemonSet',
      name: 'pre',
      uid: ds.metadata?.uid,
    });
    const labelled = await eventually(async () => {
      const r = await env.client.get(Resources.ControllerRevision, 'default', revision.metadata!.name!);
      return r.metadata?.labels?.['apps.kruise.io/pre-predownload-created'] === 'true' ? r : undefined;
    });
    expect(labelled).toBeDefined();
    await env.client.mergePatch(KruiseResources.DaemonSet, 'default', 'pre', {
      spec: { updateStrategy: { rollingUpdate: { paused: false } } },
    });
    await runUntil(env.client, 'pre', (pods, ds) =>
      ds.status?.updatedNumberScheduled === NODES.length && ds.status.numberAvailable === NODES.length
        ? pods
        : undefined,
    );
    await eventually(async () => (await jobOf('pre')) === undefined);
  });

  it('waits for the min-updated-ready-pods annotation before it pulls', async () => {
    await env.client.create(
      KruiseResources.DaemonSet,
      inPlace(
        'gated',
        { paused: true, selector: { matchLabels: { 'kubernetes.io/hostname': 'n1' } } },
        { 'apps.kruise.io/image-predownload-min-updated-ready-pods': '1' },
      ) as KubeObject,
    );
    await available('gated');
    await setImage('gated', 'busybox:v2');
    await eventually(async () => {
      const ds = await getDs(env.client, 'gated');
      return ds.status?.observedGeneration === ds.metadata?.generation;
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await jobOf('gated')).toBeUndefined();
    // the canary node updates; once it is Ready, the other nodes pull
    await env.client.mergePatch(KruiseResources.DaemonSet, 'default', 'gated', {
      spec: { updateStrategy: { rollingUpdate: { paused: false } } },
    });
    await runUntil(env.client, 'gated', (pods, ds) =>
      ds.status?.updatedNumberScheduled === 1 && pods.every(runningItsSpec) ? pods : undefined,
    );
    const { job } = await eventually(() => jobOf('gated'));
    expect(job.spec?.image).toBe('busybox:v2');
  });
});
