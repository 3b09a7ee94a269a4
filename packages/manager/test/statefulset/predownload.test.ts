import { type ImagePullJob, KruiseResources } from '@kruise/api';
import { Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  getSet,
  observedStatus,
  runSetUntil,
  type StatefulSetEnv,
  startStatefulSetEnv,
  statefulSet,
} from './harness.ts';

let env: StatefulSetEnv;
beforeAll(async () => {
  env = await startStatefulSetEnv([
    '--feature-gates=ImagePullJobGate=true,PreDownloadImageForInPlaceUpdate=true',
  ]);
});
afterAll(() => env?.stop());

describe('Advanced StatefulSet image pre-download', () => {
  it('pulls the next image on the nodes before an in-place update, and labels the revision', async () => {
    const { client } = env;
    await client.create(
      KruiseResources.StatefulSet,
      statefulSet('pre', {
        replicas: 4,
        podManagementPolicy: 'Parallel',
        updateStrategy: { rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', paused: true } },
        template: {
          metadata: { labels: { app: 'pre' } },
          spec: {
            readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
            containers: [{ name: 'main', image: 'busybox:v1' }],
          },
        },
      }),
    );
    await runSetUntil(client, 'pre', async () => (await observedStatus(client, 'pre'))?.readyReplicas === 4);
    await client.mergePatch(KruiseResources.StatefulSet, 'default', 'pre', {
      spec: { template: { spec: { containers: [{ name: 'main', image: 'busybox:v2' }] } } },
    });
    const set = await eventually(async () => {
      const s = await getSet(client, 'pre');
      return s.status?.updateRevision !== s.status?.currentRevision ? s : undefined;
    });
    const job = (await eventually(() =>
      client
        .get(KruiseResources.ImagePullJob, 'default', `${set.status?.updateRevision}-main`)
        .catch(() => undefined),
    )) as ImagePullJob;
    expect(job.spec).toMatchObject({
      image: 'busybox:v2',
      parallelism: 1,
      completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 600 },
    });
    expect(job.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'StatefulSet',
      name: 'pre',
      uid: set.metadata?.uid,
    });
    const revision = await client.get(
      Resources.ControllerRevision,
      'default',
      set.status?.updateRevision ?? '',
    );
    expect(revision.metadata?.labels?.['apps.kruise.io/pre-predownload-created']).toBe('true');
  });
});
