import { KruiseResources } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  getSet,
  isBroken,
  observedStatus,
  podsOf,
  runPod,
  runSetUntil,
  type StatefulSetEnv,
  startStatefulSetEnv,
  statefulSet,
} from './harness.ts';

let env: StatefulSetEnv;
beforeAll(async () => {
  env = await startStatefulSetEnv(['--feature-gates=InPlaceWorkloadVerticalScaling=true']);
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

  it('a finished in-place update is written once: its condition and lifecycle state once per pod, not once per pass of the round', async () => {
    const { client, cp } = env;
    await readySet('once', {
      replicas: 2,
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible' } },
      template: {
        metadata: { labels: { app: 'once' } },
        spec: {
          readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
          containers: [{ name: 'main', image: 'busybox:v1' }],
        },
      },
    });
    const since = new Date().toISOString();
    await setImage('once', 'busybox:v2');
    await runSetUntil(client, 'once', async () => {
      const s = await observedStatus(client, 'once');
      return s?.updatedReadyReplicas === 2 && s.currentRevision === s.updateRevision;
    });
    const mine = cp.audit.list((r) => r.time >= since && r.resource === 'pods' && r.name.startsWith('once-'));
    const writes = (verb: string, subresource: string) =>
      mine
        .filter((r) => r.verb === verb && r.subresource === subresource)
        .map((r) => r.name)
        .sort();
    // per pod: InPlaceUpdateReady False, then True (the fake kubelet here patches its status); the
    // lifecycle state goes Updating with the new spec, then Normal in one patch; nothing conflicts
    expect(writes('update', 'status')).toEqual(['once-0', 'once-0', 'once-1', 'once-1']);
    expect(writes('update', '')).toEqual(['once-0', 'once-1']);
    expect(writes('patch', '')).toEqual(['once-0', 'once-1']);
    expect(mine.filter((r) => r.code === 409)).toEqual([]);
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

  it('a rollout stuck on a broken revision goes back when the template is rolled back: the broken pod is replaced, the others kept', async () => {
    const { client } = env;
    const before = uidOf(await readySet('rollback', { replicas: 3 }));
    await setImage('rollback', 'busybox:broken');
    await runSetUntil(client, 'rollback', async () => {
      const s = await observedStatus(client, 'rollback');
      return s?.updatedReplicas === 1 && s.readyReplicas === 2;
    });
    await setImage('rollback', 'busybox:v1');
    const done = await runSetUntil(client, 'rollback', async () => {
      const s = await observedStatus(client, 'rollback');
      return s?.readyReplicas === 3 && s.updatedReplicas === 3 && s.currentRevision === s.updateRevision
        ? s
        : undefined;
    });
    const after = await podsOf(client, 'rollback');
    expect(after.map(image)).toEqual(['busybox:v1', 'busybox:v1', 'busybox:v1']);
    const uids = uidOf(after);
    expect([uids['rollback-0'], uids['rollback-1']]).toEqual([before['rollback-0'], before['rollback-1']]);
    expect(uids['rollback-2']).not.toBe(before['rollback-2']);
    expect(done.updateRevision).toBe(after[0]!.metadata?.labels?.['controller-revision-hash']);
  });

  it('Parallel with scaleStrategy.maxUnavailable 100% (kruise #1134): a broken update stops at maxUnavailable and goes on once fixed', async () => {
    const { client } = env;
    await readySet('par-broken', {
      replicas: 4,
      podManagementPolicy: 'Parallel',
      scaleStrategy: { maxUnavailable: '100%' },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } },
    });
    await setImage('par-broken', 'busybox:broken');
    await runSetUntil(client, 'par-broken', async () => {
      const s = await observedStatus(client, 'par-broken');
      const broken = (await podsOf(client, 'par-broken')).filter(isBroken);
      return s?.updatedReplicas === 2 && s.readyReplicas === 2 && broken.length === 2;
    });
    // two broken pods are all maxUnavailable allows: the other two stay on the old image
    expect((await podsOf(client, 'par-broken')).map(image)).toEqual([
      'busybox:v1',
      'busybox:v1',
      'busybox:broken',
      'busybox:broken',
    ]);
    await setImage('par-broken', 'busybox:v3');
    await runSetUntil(client, 'par-broken', async () => {
      const s = await observedStatus(client, 'par-broken');
      return s?.updatedReplicas === 4 && s.readyReplicas === 4 && s.currentRevision === s.updateRevision;
    });
    expect((await podsOf(client, 'par-broken')).map(image)).toEqual(Array(4).fill('busybox:v3'));
  });

  it('InPlaceWorkloadVerticalScaling: a cpu change resizes the pods in place, keeping every pod', async () => {
    const { client } = env;
    const resources = (cpu: string) => ({ requests: { cpu }, limits: { cpu } });
    const template = (cpu: string) => ({
      metadata: { labels: { app: 'resize' } },
      spec: {
        readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
        containers: [{ name: 'main', image: 'busybox:v1', resources: resources(cpu) }],
      },
    });
    const before = uidOf(
      await readySet('resize', {
        replicas: 2,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible' } },
        template: template('100m'),
      }),
    );
    await client.mergePatch(KruiseResources.StatefulSet, 'default', 'resize', {
      spec: { template: template('200m') },
    });
    // the node reports the new allocation once a pod is resized (as kubelet does), and the update goes on
    await eventually(
      async () => {
        for (const p of await podsOf(client, 'resize'))
          if (p.spec?.containers[0]?.resources?.requests?.cpu === '200m') await runPod(client, p);
        const s = await observedStatus(client, 'resize');
        return s?.updatedReadyReplicas === 2 && s.currentRevision === s.updateRevision;
      },
      { timeoutMs: 20_000, intervalMs: 50, what: 'both pods resized to 200m' },
    );
    const after = await podsOf(client, 'resize');
    expect(uidOf(after)).toEqual(before);
    expect(after.map((p) => p.spec?.containers[0]?.resources)).toEqual([
      resources('200m'),
      resources('200m'),
    ]);
  });
});
