import { KruiseResources, type StatefulSet } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { kubectl } from '../support/kubectl.ts';
import { startTestNodes, type TestNodes } from '../support/local-nodes.ts';
import { deleteWorkloadsAndPods } from '../support/workload-cleanup.ts';
import { LOOP, type System, startSystem, until } from './env.ts';

/**
 * Advanced StatefulSet end to end: kruise-manager, kruise-daemon and a local node as processes on
 * the test containerd, and two more local nodes on containerds of their own; pods really run, get
 * ready through their probes and mount local-path claims (which tie a pod to its claim's node).
 * Scaling, ordinals, Parallel, claims, preDelete and the stuck-rollout recovery.
 */
const NODE = 'asts-node';
let sys: System;
let extra: TestNodes;
beforeAll(async () => {
  sys = await startSystem(NODE);
  extra = await startTestNodes(sys.client, {
    count: 2,
    base: 'asts-extra',
    criStackDir: `${inject('criStackDir')}-asts`,
    registry: sys.registry,
  });
}, 180_000);
afterAll(async () => {
  // the sets first, so they do not replace the pods; then the pods, while every node still runs
  await deleteWorkloadsAndPods(sys?.client, KruiseResources.StatefulSet);
  await extra?.stop();
  await sys?.stop();
});

/** A pod as the API returns it. */
type Pod = KubeObject;
type Status = NonNullable<StatefulSet['status']>;

const image = (tag: string) => `${sys.registry}/busybox:${tag}`;
/** Ready 2 s after its container starts (a probe that succeeds once its initial delay is over). */
const slowReady = { exec: { command: ['true'] }, initialDelaySeconds: 2, periodSeconds: 1 };
const container = (img: string, extra: Record<string, unknown> = {}) => ({
  name: 'app',
  image: img,
  command: LOOP,
  ...extra,
});
/** An Advanced StatefulSet of busybox pods selecting `app: <name>`; `app` adds to its container. */
const statefulSet = (name: string, spec: Record<string, unknown> = {}, app: Record<string, unknown> = {}) =>
  ({
    metadata: { name, namespace: 'default' },
    spec: {
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { terminationGracePeriodSeconds: 1, containers: [container(image('v1'), app)] },
      },
      ...spec,
    },
  }) as KubeObject;
const ordinal = (p: Pod) => Number(p.metadata!.name!.slice(p.metadata!.name!.lastIndexOf('-') + 1));
/** The set's pods by ordinal; those being deleted only with `all`. */
const pods = async (name: string, all = false) =>
  (
    (await sys.client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${name}` }))
      .items as Pod[]
  )
    .filter((p) => all || !p.metadata?.deletionTimestamp)
    .sort((a, b) => ordinal(a) - ordinal(b));
const names = (p: Pod[]) => p.map((x) => x.metadata!.name!);
const get = async (name: string) =>
  (await sys.client.get(KruiseResources.StatefulSet, 'default', name)) as StatefulSet;
const patch = (name: string, spec: Record<string, unknown>) =>
  sys.client.mergePatch(KruiseResources.StatefulSet, 'default', name, { spec });
/** Waits until the set observed its generation and `check` holds on its status and pods (all of them, deleting ones too). */
const settled = (name: string, check: (s: Status, p: Pod[]) => boolean, ms = 60_000) =>
  until(
    async () => {
      const set = await get(name);
      const s = set.status;
      if (!s || s.observedGeneration !== set.metadata?.generation) return undefined;
      return check(s, await pods(name, true)) ? s : undefined;
    },
    { timeoutMs: ms, what: `StatefulSet ${name} settled` },
  );
const readyCondition = (p: Pod) =>
  p.status?.conditions?.find((c: { type: string }) => c.type === 'Ready') as
    | { status: string; lastTransitionTime: string }
    | undefined;
const isReady = (p: Pod) => readyCondition(p)?.status === 'True';
const createdAt = (p: Pod) => Date.parse(p.metadata!.creationTimestamp!);
const readyAt = (p: Pod) => Date.parse(readyCondition(p)!.lastTransitionTime);
/** All `n` pods there, none being deleted, every one Ready and counted available. */
const allReady = (n: number) => (s: Status, p: Pod[]) =>
  p.length === n && p.every((x) => !x.metadata?.deletionTimestamp && isReady(x)) && s.availableReplicas === n;
const setImage = (name: string, img: string) =>
  patch(name, { template: { spec: { containers: [container(img)] } } });

/** Waits until pod `pod` is there and its node cannot pull its image (ErrImagePull). */
const pullFails = (pod: string) =>
  until(
    async () => {
      const p = (await sys.client.get(Resources.Pod, 'default', pod)) as Pod;
      return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ErrImagePull' ? p : undefined;
    },
    { timeoutMs: 60_000, what: `pod ${pod} failing to pull its image` },
  );
/** Waits until the set's `n` pods all run `img`, Ready, updated and counted available. */
const rolledOut = (name: string, n: number, img: string) =>
  settled(
    name,
    (s, p) =>
      allReady(n)(s, p) && s.updatedReplicas === n && p.every((x) => x.spec.containers[0].image === img),
    90_000,
  );

describe('Advanced StatefulSet on a real node', () => {
  it('OrderedReady creates each pod only after its predecessor became Ready, and deletes highest ordinal first', async () => {
    await sys.client.create(
      KruiseResources.StatefulSet,
      statefulSet('ordered', { replicas: 3 }, { readinessProbe: slowReady }),
    );
    await settled('ordered', allReady(3));
    const created = await pods('ordered');
    expect(names(created)).toEqual(['ordered-0', 'ordered-1', 'ordered-2']);
    for (const p of created) {
      expect(p.spec).toMatchObject({ hostname: p.metadata!.name, subdomain: 'ordered' });
      // each pod took its probe's delay to become Ready: a set that did not wait would show
      expect(readyAt(p) - createdAt(p)).toBeGreaterThanOrEqual(1_000);
    }
    for (let i = 1; i < created.length; i++)
      expect(createdAt(created[i]!)).toBeGreaterThanOrEqual(readyAt(created[i - 1]!));

    // scale down to 1: ordered-2 goes entirely before ordered-1 is touched
    await patch('ordered', { replicas: 1 });
    // sampled: which pods were being deleted, and what else was there then
    const deleting: string[] = [];
    const overlaps: string[][] = [];
    await settled('ordered', (s, p) => {
      deleting.push(...p.filter((x) => x.metadata?.deletionTimestamp).map((x) => x.metadata!.name!));
      if (
        p.some((x) => x.metadata?.name === 'ordered-1' && x.metadata.deletionTimestamp) &&
        names(p).includes('ordered-2')
      )
        overlaps.push(names(p));
      return p.length === 1 && s.replicas === 1;
    });
    expect(deleting).toContain('ordered-2');
    expect(overlaps).toEqual([]);
    expect(names(await pods('ordered', true))).toEqual(['ordered-0']);
  });

  it('reserveOrdinals skips an ordinal; scaling to 0 and back gives exactly the ordinals the spec names', async () => {
    await sys.client.create(
      KruiseResources.StatefulSet,
      statefulSet('reserved', { replicas: 3, reserveOrdinals: [1] }),
    );
    await settled('reserved', allReady(3));
    expect(names(await pods('reserved'))).toEqual(['reserved-0', 'reserved-2', 'reserved-3']);
    const firstUids = (await pods('reserved')).map((p) => p.metadata!.uid);

    await patch('reserved', { replicas: 0 });
    await settled('reserved', (s, p) => p.length === 0 && s.replicas === 0);

    // back to 3: every pod that ever appears has one of the spec's ordinals (kruise #1104, #746)
    await patch('reserved', { replicas: 3 });
    const seen = new Set<string>();
    await settled('reserved', (s, p) => {
      for (const n of names(p)) seen.add(n);
      return allReady(3)(s, p);
    });
    expect([...seen].sort()).toEqual(['reserved-0', 'reserved-2', 'reserved-3']);
    const back = await pods('reserved');
    expect(names(back)).toEqual(['reserved-0', 'reserved-2', 'reserved-3']);
    // new pods, not the old ones kept somewhere
    for (const p of back) expect(firstUids).not.toContain(p.metadata!.uid);
    for (const p of back)
      expect(p.metadata!.labels!['apps.kubernetes.io/pod-index']).toBe(String(ordinal(p)));
  });

  it('Parallel with scaleStrategy.maxUnavailable 2: scaling 0 → 5, never more than 2 pods created and not yet Ready', async () => {
    await sys.client.create(
      KruiseResources.StatefulSet,
      statefulSet(
        'burst',
        { replicas: 0, podManagementPolicy: 'Parallel', scaleStrategy: { maxUnavailable: 2 } },
        { readinessProbe: slowReady },
      ),
    );
    await settled('burst', (s) => s.replicas === 0);
    await patch('burst', { replicas: 5 });
    // Upstream counts against the budget each pod of the range that exists and is not running and
    // available (created, starting, terminating or not Ready); a pod not created yet does not count.
    const samples: number[] = [];
    await settled(
      'burst',
      (s, p) => {
        samples.push(
          p.filter((x) => ordinal(x) < 5 && (x.metadata?.deletionTimestamp || !isReady(x))).length,
        );
        return allReady(5)(s, p);
      },
      90_000,
    );
    expect(Math.max(...samples)).toBe(2);
    const final = await pods('burst');
    expect(names(final)).toEqual(['burst-0', 'burst-1', 'burst-2', 'burst-3', 'burst-4']);
    // the last pods waited for earlier ones: burst-4 was created after two pods had become Ready
    const readyTimes = final.map(readyAt).sort((a, b) => a - b);
    expect(createdAt(final[4]!)).toBeGreaterThanOrEqual(readyTimes[1]!);
    // the first two at once (Parallel), not one after the other's readiness
    expect(createdAt(final[1]!)).toBeLessThan(readyAt(final[0]!));
  }, 120_000);

  it('claims <template>-<set>-<ordinal>: kept and reused under Retain, deleted with their pod (whenScaled: Delete) and with the set (whenDeleted: Delete)', async () => {
    const claim = async (n: string) =>
      (await sys.client.get(Resources.PersistentVolumeClaim, 'default', n).catch(() => undefined)) as
        | KubeObject
        | undefined;
    const inPod = async (pod: string, script: string) => {
      const r = await kubectl(sys.kubeconfig, ['exec', pod, '-c', 'app', '--', 'sh', '-c', script]);
      if (r.status !== 0) throw new Error(`kubectl exec ${pod}: ${r.stderr}`);
      return r.stdout;
    };
    await sys.client.create(
      KruiseResources.StatefulSet,
      statefulSet(
        'vols',
        {
          replicas: 2,
          podManagementPolicy: 'Parallel',
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
            },
          ],
        },
        { volumeMounts: [{ name: 'data', mountPath: '/data' }] },
      ),
    );
    await settled('vols', allReady(2));
    const [, second] = await pods('vols');
    const claims = await Promise.all(['data-vols-0', 'data-vols-1'].map(claim));
    for (const [i, c] of claims.entries()) {
      expect(c?.status?.phase).toBe('Bound');
      // Retain / Retain (the default): no owner, nothing deletes the claim
      expect(c?.metadata?.ownerReferences ?? []).toEqual([]);
      expect((await pods('vols'))[i]!.spec!.volumes).toContainEqual({
        name: 'data',
        persistentVolumeClaim: { claimName: `data-vols-${i}` },
      });
    }
    await inPod('vols-1', `echo written-by-${second!.metadata!.uid} > /data/f`);

    // scaled down under whenScaled: Retain, the claim stays; the pod that comes back mounts it
    await patch('vols', { replicas: 1 });
    await settled('vols', (s, p) => s.replicas === 1 && names(p).join() === 'vols-0');
    const kept = await claim('data-vols-1');
    expect(kept?.metadata?.uid).toBe(claims[1]!.metadata!.uid);
    expect(kept?.metadata?.ownerReferences ?? []).toEqual([]);
    // The claim's local-path volume lives on vols-1's node: with that node cordoned, the pod that
    // comes back fits no node, although the others are free; uncordoned, it runs there again.
    const home = second!.spec!.nodeName as string;
    const pv = (await sys.client.get(
      Resources.PersistentVolume,
      undefined,
      kept!.spec.volumeName,
    )) as KubeObject;
    expect(pv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values).toEqual([home]);
    const cordon = (unschedulable: boolean) =>
      sys.client.mergePatch(Resources.Node, undefined, home, { spec: { unschedulable } });
    await cordon(true);
    try {
      await patch('vols', { replicas: 2 });
      const unplaced = await until(async () => {
        const p = (await pods('vols')).find((x) => x.metadata!.name === 'vols-1');
        const scheduled = p?.status?.conditions?.find((c: { type: string }) => c.type === 'PodScheduled');
        return scheduled?.status === 'False' ? { p: p!, scheduled } : undefined;
      });
      expect(unplaced.p.spec!.nodeName).toBeUndefined();
      expect(unplaced.scheduled.message).toContain(
        '0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) had volume node affinity conflict.',
      );
    } finally {
      await cordon(false);
    }
    await settled('vols', allReady(2));
    const [, again] = await pods('vols');
    expect(again!.metadata!.uid).not.toBe(second!.metadata!.uid);
    expect(again!.spec!.nodeName).toBe(home);
    expect((await claim('data-vols-1'))?.metadata?.uid).toBe(claims[1]!.metadata!.uid);
    expect(await inPod('vols-1', 'cat /data/f')).toBe(`written-by-${second!.metadata!.uid}\n`);

    // Delete / Delete: the set owns the claims of its pods; a scaled-down pod owns its claim
    await patch('vols', {
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
    });
    const set = await get('vols');
    const ownedBySet = await until(async () => {
      const cs = await Promise.all(['data-vols-0', 'data-vols-1'].map(claim));
      return cs.every((c) =>
        c?.metadata?.ownerReferences?.some((r: { uid: string }) => r.uid === set.metadata!.uid),
      )
        ? cs
        : undefined;
    });
    expect(ownedBySet[0]!.metadata!.ownerReferences).toEqual([
      expect.objectContaining({ apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet', name: 'vols' }),
    ]);
    await patch('vols', { replicas: 1 });
    await settled('vols', (s, p) => s.replicas === 1 && names(p).join() === 'vols-0');
    await until(async () => ((await claim('data-vols-1')) ? undefined : true), {
      what: 'claim data-vols-1 deleted with its scaled-down pod',
    });
    expect((await claim('data-vols-0'))?.metadata?.uid).toBe(claims[0]!.metadata!.uid);

    await sys.client.delete(KruiseResources.StatefulSet, 'default', 'vols');
    await until(async () => ((await claim('data-vols-0')) ? undefined : true), {
      timeoutMs: 60_000,
      what: 'claim data-vols-0 deleted with its set',
    });
  }, 150_000);

  it('a preDelete hook holds a scaled-down pod in PreparingDelete (not Ready) until the hook label goes', async () => {
    const hook = { 'example.io/block': 'true' };
    await sys.client.create(
      KruiseResources.StatefulSet,
      statefulSet('hooked', {
        replicas: 2,
        lifecycle: { preDelete: { labelsHandler: hook, markPodNotReady: true } },
        template: {
          metadata: { labels: { app: 'hooked', ...hook } },
          spec: { terminationGracePeriodSeconds: 1, containers: [container(image('v1'))] },
        },
      }),
    );
    await settled('hooked', allReady(2));
    const victim = (await pods('hooked'))[1]!;
    await patch('hooked', { replicas: 1 });
    const held = await until(async () => {
      const p = (await sys.client.get(Resources.Pod, 'default', 'hooked-1')) as Pod;
      return !isReady(p) && p.metadata?.labels?.['lifecycle.apps.kruise.io/state'] === 'PreparingDelete'
        ? p
        : undefined;
    });
    expect(held.metadata!.uid).toBe(victim.metadata!.uid);
    // not Ready because of the hook (markPodNotReady), as the pod's KruisePodReady condition says
    expect(held.status!.conditions!.find((c: { type: string }) => c.type === 'KruisePodReady')).toMatchObject(
      { status: 'False', message: '[{"userAgent":"Lifecycle","key":"preDeleteHook"}]' },
    );
    // The marker: a status written by a reconcile that saw the held pod not ready, after its scale
    // and delete decisions.
    await settled('hooked', (s) => s.replicas === 2 && s.readyReplicas === 1);
    const still = (await sys.client.get(Resources.Pod, 'default', 'hooked-1')) as Pod;
    expect(still.metadata!.deletionTimestamp).toBeUndefined();
    expect(still.status!.phase).toBe('Running');
    await sys.client.mergePatch(Resources.Pod, 'default', 'hooked-1', {
      metadata: { labels: { 'example.io/block': null } },
    });
    await settled('hooked', (s, p) => s.replicas === 1 && names(p).join() === 'hooked-0');
  });

  it('a rollout stuck on an image that does not exist (OrderedReady) finishes once the template is fixed, nobody deleting a pod', async () => {
    await sys.client.create(KruiseResources.StatefulSet, statefulSet('stuck', { replicas: 3 }));
    await settled('stuck', allReady(3));
    const before = await pods('stuck');
    await setImage('stuck', image('missing'));
    // the highest ordinal is recreated on the broken revision and cannot pull its image
    const broken = await pullFails('stuck-2');
    expect(broken.metadata!.uid).not.toBe(before[2]!.metadata!.uid);
    // the rollout stops there: a status of a round that saw the broken pod, the others untouched
    const stopped = await settled(
      'stuck',
      (s, p) => p.length === 3 && s.updatedReplicas === 1 && s.readyReplicas === 2,
    );
    expect(stopped.currentRevision).not.toBe(stopped.updateRevision);
    const during = await pods('stuck');
    expect(during.slice(0, 2).map((p) => p.metadata!.uid)).toEqual(
      before.slice(0, 2).map((p) => p.metadata!.uid),
    );
    expect(during[2]!.status!.phase).toBe('Pending');

    // fixed: the broken pod is replaced although it never became ready, then 1 and 0, in order
    await setImage('stuck', image('v2'));
    const done = await rolledOut('stuck', 3, image('v2'));
    expect(done.currentRevision).toBe(done.updateRevision);
    const after = await pods('stuck');
    for (const p of after) {
      expect([broken, ...before].map((b) => b.metadata!.uid)).not.toContain(p.metadata!.uid);
      expect(p.status!.containerStatuses![0]).toMatchObject({ image: image('v2'), ready: true });
    }
    // descending ordinals, each replacement after the previous one became Ready
    expect(createdAt(after[1]!)).toBeGreaterThanOrEqual(readyAt(after[2]!));
    expect(createdAt(after[0]!)).toBeGreaterThanOrEqual(readyAt(after[1]!));
  }, 150_000);

  it('Parallel with scaleStrategy.maxUnavailable 100% recovers from a template whose pods never start (kruise #1134)', async () => {
    await sys.client.create(
      KruiseResources.StatefulSet,
      statefulSet('wide', {
        replicas: 2,
        podManagementPolicy: 'Parallel',
        scaleStrategy: { maxUnavailable: '100%' },
      }),
    );
    await settled('wide', allReady(2));
    const before = await pods('wide');
    await setImage('wide', image('missing'));
    await pullFails('wide-1');
    await setImage('wide', image('v2'));
    const done = await rolledOut('wide', 2, image('v2'));
    expect(done.currentRevision).toBe(done.updateRevision);
    for (const p of await pods('wide'))
      expect(before.map((b) => b.metadata!.uid)).not.toContain(p.metadata!.uid);
  }, 120_000);
});
