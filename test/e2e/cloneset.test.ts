import { execFileSync } from 'node:child_process';
import { type CloneSet, KruiseResources } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';

/** A pod as the API returns it. */
type Pod = KubeObject;

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl } from '../support/kubectl.ts';
import { podLog } from '../support/pod-log.ts';
import { LOOP, type System, startSystem, until } from './env.ts';

/**
 * CloneSet end to end: kruise-manager, kruise-daemon and a local node as processes on the test
 * containerd; pods really run, and in-place updates restart containers in the same pod.
 */
const NODE = 'cloneset-node';
let sys: System;
beforeAll(async () => {
  // pre-download of the new image before an in-place update (off by default, as upstream)
  // pre-download of the new image before an in-place update and in-place resizes (off by default, as upstream)
  sys = await startSystem(NODE, {
    managerArgs: [
      '--feature-gates=PreDownloadImageForInPlaceUpdate=true,InPlaceWorkloadVerticalScaling=true',
    ],
  });
}, 120_000);
afterAll(async () => {
  // the CloneSets first, so they do not replace the pods the system's stop deletes
  const sets = await sys?.client
    .list(KruiseResources.CloneSet, { namespace: 'default' })
    .catch(() => undefined);
  for (const cs of sets?.items ?? [])
    await sys.client.delete(KruiseResources.CloneSet, 'default', cs.metadata!.name!).catch(() => undefined);
  await sys?.stop();
});

const image = (tag: string) => `${sys.registry}/busybox:${tag}`;
const cloneSet = (name: string, spec: Record<string, unknown> = {}) =>
  ({
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'app', image: image('v1'), command: LOOP }],
        },
      },
      ...spec,
    },
  }) as KubeObject;
const pods = async (name: string) =>
  (
    (await sys.client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${name}` }))
      .items as Pod[]
  )
    .filter((p) => !p.metadata?.deletionTimestamp)
    .sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
const get = async (name: string) =>
  (await sys.client.get(KruiseResources.CloneSet, 'default', name)) as CloneSet;
/** Waits until the CloneSet observed its generation and `check` holds on its status and pods. */
const settled = (
  name: string,
  check: (s: NonNullable<CloneSet['status']>, p: Pod[]) => boolean,
  ms = 40_000,
) =>
  until(async () => {
    const cs = await get(name);
    const s = cs.status;
    if (!s || s.observedGeneration !== cs.metadata?.generation) return undefined;
    const p = await pods(name);
    return check(s, p) ? s : undefined;
  }, ms);
const setImage = (name: string, img: string) =>
  sys.client.mergePatch(KruiseResources.CloneSet, 'default', name, {
    spec: { template: { spec: { containers: [{ name: 'app', image: img, command: LOOP }] } } },
  });
const status = (p: Pod) => p.status!.containerStatuses![0]!;

describe('CloneSet on a real node', () => {
  it('scales with the defaults: pods run, become Ready through both readiness gates, and are counted', async () => {
    await sys.client.create(KruiseResources.CloneSet, cloneSet('web', { replicas: 3 }));
    const s = await settled('web', (st, p) => p.length === 3 && st.availableReplicas === 3);
    expect(s).toMatchObject({ replicas: 3, readyReplicas: 3, updatedReplicas: 3, updatedReadyReplicas: 3 });
    for (const p of await pods('web')) {
      expect(p.spec!.nodeName).toBe(NODE);
      expect(p.spec!.readinessGates!.map((g: { conditionType: string }) => g.conditionType).sort()).toEqual([
        'InPlaceUpdateReady',
        'KruisePodReady',
      ]);
      expect(p.status!.conditions!.find((c: { type: string }) => c.type === 'Ready')?.status).toBe('True');
    }
    // each pod on the pod network with an IP of its own (what the in-place update must keep)
    const ips = (await pods('web')).map((p) => p.status!.podIP);
    expect(new Set(ips).size).toBe(3);
    for (const ip of ips) expect(ip).toMatch(/^10\.88\.\d+\.\d+$/);
  });

  it('updates the image in place: same pods (UID, IP), restartCount 1, the new imageID', async () => {
    await sys.client.mergePatch(KruiseResources.CloneSet, 'default', 'web', {
      spec: { updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } },
    });
    const before = await pods('web');
    await setImage('web', image('v2'));
    const s = await settled(
      'web',
      (st, p) => st.updatedAvailableReplicas === 3 && p.every((x) => status(x).ready),
    );
    expect(s.currentRevision).toBe(s.updateRevision);
    const after = await pods('web');
    expect(after.map((p) => p.metadata!.uid)).toEqual(before.map((p) => p.metadata!.uid));
    expect(after.map((p) => p.status!.podIP)).toEqual(before.map((p) => p.status!.podIP));
    for (const [i, p] of after.entries()) {
      expect(status(p).image).toBe(image('v2'));
      expect(status(p).restartCount).toBe(1);
      expect(status(p).imageID).not.toBe(status(before[i]!).imageID);
      expect(p.metadata!.labels!['lifecycle.apps.kruise.io/state']).toBe('Normal');
    }
  });

  it('completes an in-place update to a tag of the same digest once the node reports the new image name', async () => {
    // the registry gets busybox:v2 under a second tag: the imageID cannot change (upstream #635)
    execFileSync('skopeo', [
      'copy',
      '--quiet',
      '--src-tls-verify=false',
      '--dest-tls-verify=false',
      `docker://${image('v2')}`,
      `docker://${image('v2-same')}`,
    ]);
    const before = await pods('web');
    await setImage('web', image('v2-same'));
    await settled(
      'web',
      (st, p) => st.updatedAvailableReplicas === 3 && p.every((x) => status(x).image === image('v2-same')),
    );
    const after = await pods('web');
    expect(after.map((p) => p.metadata!.uid)).toEqual(before.map((p) => p.metadata!.uid));
    for (const [i, p] of after.entries()) expect(status(p).imageID).toBe(status(before[i]!).imageID);
  });

  it('partition keeps pods at the old revision (a canary), rollback returns them to it in place', async () => {
    await sys.client.create(
      KruiseResources.CloneSet,
      cloneSet('canary', { replicas: 2, updateStrategy: { type: 'InPlaceIfPossible', partition: 1 } }),
    );
    const first = (await settled('canary', (st) => st.availableReplicas === 2)).updateRevision;
    const uids = (await pods('canary')).map((p) => p.metadata!.uid);
    await setImage('canary', image('v2'));
    const s = await settled(
      'canary',
      (st) => st.updatedAvailableReplicas === 1 && st.availableReplicas === 2,
    );
    expect(s.expectedUpdatedReplicas).toBe(1);
    expect((await pods('canary')).map((p) => status(p).image).sort()).toEqual([image('v1'), image('v2')]);
    // back to the first template with the partition lifted: the canary returns in place
    await sys.client.mergePatch(KruiseResources.CloneSet, 'default', 'canary', {
      spec: {
        updateStrategy: { partition: 0 },
        template: { spec: { containers: [{ name: 'app', image: image('v1'), command: LOOP }] } },
      },
    });
    const back = await settled(
      'canary',
      (st) => st.updateRevision === first && st.updatedAvailableReplicas === 2,
    );
    expect(back.currentRevision).toBe(first);
    expect((await pods('canary')).map((p) => p.metadata!.uid)).toEqual(uids);
  });

  it('a label read by an env var and the image change in place with one restart', async () => {
    const template = (version: string, tag: string) => ({
      metadata: { labels: { app: 'envy', version } },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'app',
            image: image(tag),
            env: [{ name: 'VERSION', valueFrom: { fieldRef: { fieldPath: "metadata.labels['version']" } } }],
            command: ['sh', '-c', `echo "version=$VERSION"; ${LOOP[2]}`],
          },
        ],
      },
    });
    await sys.client.create(
      KruiseResources.CloneSet,
      cloneSet('envy', {
        replicas: 1,
        updateStrategy: { type: 'InPlaceIfPossible' },
        template: template('v1', 'v1'),
      }),
    );
    await settled('envy', (st) => st.availableReplicas === 1);
    const [before] = await pods('envy');
    await sys.client.mergePatch(KruiseResources.CloneSet, 'default', 'envy', {
      spec: { template: template('v2', 'v2') },
    });
    await settled('envy', (st, p) => st.updatedAvailableReplicas === 1 && p.every((x) => status(x).ready));
    const [after] = await pods('envy');
    expect(after!.metadata!.uid).toBe(before!.metadata!.uid);
    expect(status(after!).restartCount).toBe(1);
    expect(status(after!).image).toBe(image('v2'));
    // The container's first line reaches its log file a moment after it starts: wait for it.
    await until(async () =>
      (await podLog(sys.client, after!.metadata!.name!, { container: 'app' })).includes('version=v2')
        ? true
        : undefined,
    );
  });

  it('maxUnavailable 1 paces an in-place update: never more than one pod unavailable, one after another', async () => {
    await sys.client.create(
      KruiseResources.CloneSet,
      cloneSet('paced', {
        replicas: 3,
        // each restarted pod stays unavailable 2 s more: an update that ignored the bound would show
        minReadySeconds: 2,
        updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 },
      }),
    );
    await settled('paced', (st, p) => p.length === 3 && st.availableReplicas === 3, 60_000);
    const uids = (await pods('paced')).map((p) => p.metadata!.uid);
    await setImage('paced', image('v2'));
    // sampled while the update runs: pods missing or not Ready, as `kubectl get pods` shows them
    const samples: number[] = [];
    await until(async () => {
      const [cs, p] = await Promise.all([get('paced'), pods('paced')]);
      const notReady = p.filter(
        (x) => x.status?.conditions?.find((c: { type: string }) => c.type === 'Ready')?.status !== 'True',
      ).length;
      samples.push(3 - p.length + notReady);
      const s = cs.status;
      return s?.observedGeneration === cs.metadata?.generation &&
        s?.updatedAvailableReplicas === 3 &&
        notReady === 0
        ? s
        : undefined;
    }, 90_000);
    expect(Math.max(...samples)).toBe(1);
    // one at a time, each unavailable for a while: many samples saw a pod down
    expect(samples.filter((n) => n === 1).length).toBeGreaterThan(3);
    const after = await pods('paced');
    expect(after.map((p) => p.metadata!.uid)).toEqual(uids);
    for (const p of after) expect(status(p)).toMatchObject({ image: image('v2'), restartCount: 1 });
  }, 120_000);

  it('paused: the template change updates no pod, a scale-up still happens; resuming updates them in place', async () => {
    await sys.client.create(
      KruiseResources.CloneSet,
      cloneSet('held', { replicas: 2, updateStrategy: { type: 'InPlaceIfPossible' } }),
    );
    await settled('held', (st, p) => p.length === 2 && st.availableReplicas === 2, 60_000);
    const before = await pods('held');
    await sys.client.mergePatch(KruiseResources.CloneSet, 'default', 'held', {
      spec: {
        replicas: 3,
        updateStrategy: { paused: true },
        template: { spec: { containers: [{ name: 'app', image: image('v2'), command: LOOP }] } },
      },
    });
    // The marker: this status was written by a reconcile that saw the three pods available, after
    // it had made its update decisions (an in-place update would have changed a pod's spec by then).
    const paused = await settled('held', (st, p) => p.length === 3 && st.availableReplicas === 3, 60_000);
    const during = await pods('held');
    const old = during.filter((p) => before.some((b) => b.metadata!.uid === p.metadata!.uid));
    expect(old).toHaveLength(2);
    for (const p of old) {
      expect(p.spec!.containers[0]!.image).toBe(image('v1'));
      expect(status(p)).toMatchObject({ image: image('v1'), restartCount: 0 });
    }
    expect(paused.updatedReplicas).toBe(1);
    expect(paused.currentRevision).not.toBe(paused.updateRevision);
    await sys.client.mergePatch(KruiseResources.CloneSet, 'default', 'held', {
      spec: { updateStrategy: { paused: false } },
    });
    const done = await settled(
      'held',
      (st, p) => st.updatedAvailableReplicas === 3 && p.length === 3 && p.every((x) => status(x).ready),
      60_000,
    );
    expect(done.currentRevision).toBe(done.updateRevision);
    for (const p of await pods('held')) expect(status(p).image).toBe(image('v2'));
    const resumed = (await pods('held')).filter((p) =>
      before.some((b) => b.metadata!.uid === p.metadata!.uid),
    );
    expect(resumed.map((p) => status(p).restartCount)).toEqual([1, 1]);
  }, 150_000);

  it('pre-download: the new image is pulled on the node by an ImagePullJob before any pod is updated', async () => {
    // an image name this node has never pulled
    const tag = `pre-${Date.now()}`;
    execFileSync('skopeo', [
      'copy',
      '--quiet',
      '--src-tls-verify=false',
      '--dest-tls-verify=false',
      `docker://${image('v2')}`,
      `docker://${image(tag)}`,
    ]);
    await sys.client.create(
      KruiseResources.CloneSet,
      cloneSet('pre', { replicas: 4, updateStrategy: { type: 'InPlaceIfPossible', partition: 4 } }),
    );
    await settled('pre', (st, p) => p.length === 4 && st.availableReplicas === 4, 60_000);
    // the node's NodeImage (made once the node has been Ready for --nodeimage-creation-delay, 30 s):
    // a job that finds no NodeImage to pull on completes at once with nothing pulled, as upstream's
    await until(() => sys.client.get(KruiseResources.NodeImage, '', NODE).catch(() => undefined), 60_000);
    const uid = (await get('pre')).metadata!.uid;
    await setImage('pre', image(tag));
    const owned = async () =>
      (
        (await sys.client.list(KruiseResources.ImagePullJob, { namespace: 'default' })).items as KubeObject[]
      ).filter((j) => j.metadata?.ownerReferences?.some((o: { uid: string }) => o.uid === uid));
    const job = await until(async () => {
      const [j] = await owned();
      return j?.status?.succeeded === 1 ? j : undefined;
    }, 90_000);
    expect(job.spec.image).toBe(image(tag));
    expect(job.status).toMatchObject({ desired: 1, succeeded: 1, failed: 0 });
    // the node reports the image as pulled, while every pod still runs the old one (partition 4; upstream pre-downloads only for more than 3 replicas)
    const nodeImage = (await sys.client.get(KruiseResources.NodeImage, '', NODE)) as KubeObject;
    const [repo] = image(tag).split(`:${tag}`);
    const tags = nodeImage.status?.imageStatuses?.[repo!]?.tags ?? [];
    expect(tags.map((t: { tag: string }) => t.tag)).toContain(tag);
    for (const p of await pods('pre')) expect(status(p).image).toBe(image('v1'));
    // the update itself then finds the image on the node; once done the job is removed
    await sys.client.mergePatch(KruiseResources.CloneSet, 'default', 'pre', {
      spec: { updateStrategy: { partition: 0 } },
    });
    const done = await settled('pre', (st) => st.updatedAvailableReplicas === 4, 60_000);
    expect(done.currentRevision).toBe(done.updateRevision);
    for (const p of await pods('pre'))
      expect(status(p)).toMatchObject({ image: image(tag), restartCount: 1 });
    await until(async () => ((await owned()).length === 0 ? true : undefined), 30_000);
  }, 180_000);

  it('a pod marked specified-delete waits for the preDelete hook, then is replaced', async () => {
    const hook = { 'example.io/block': 'true' };
    await sys.client.create(
      KruiseResources.CloneSet,
      cloneSet('hooked', {
        replicas: 2,
        lifecycle: { preDelete: { labelsHandler: hook, markPodNotReady: true } },
        template: {
          metadata: { labels: { app: 'hooked', ...hook } },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'app', image: image('v1'), command: LOOP }],
          },
        },
      }),
    );
    await settled('hooked', (st) => st.availableReplicas === 2);
    const [victim] = await pods('hooked');
    const name = victim!.metadata!.name!;
    await sys.client.mergePatch(Resources.Pod, 'default', name, {
      metadata: { labels: { 'apps.kruise.io/specified-delete': 'true' } },
    });
    // held: PreparingDelete and not Ready (KruisePodReady False), not deleted
    const held = await until(async () => {
      const p = (await sys.client.get(Resources.Pod, 'default', name)) as Pod;
      const ready = p.status?.conditions?.find((c: { type: string }) => c.type === 'Ready')?.status;
      return ready === 'False' && p.metadata?.labels?.['lifecycle.apps.kruise.io/state'] === 'PreparingDelete'
        ? p
        : undefined;
    });
    expect(held.metadata!.deletionTimestamp).toBeUndefined();
    expect(held.status!.conditions!.find((c: { type: string }) => c.type === 'KruisePodReady')).toMatchObject(
      {
        status: 'False',
        message: '[{"userAgent":"Lifecycle","key":"preDeleteHook"}]',
      },
    );
    // The marker: a status written by a reconcile that saw the held pod not ready, after its
    // scale and delete decisions.
    await settled('hooked', (st) => st.availableReplicas === 1);
    expect((await pods('hooked')).map((p) => p.metadata!.name)).toContain(name);
    await sys.client.mergePatch(Resources.Pod, 'default', name, {
      metadata: { labels: { 'example.io/block': null } },
    });
    await settled(
      'hooked',
      (st, p) => st.availableReplicas === 2 && p.length === 2 && !p.some((x) => x.metadata!.name === name),
    );
    // a replacement is a new pod: a new sandbox, so an IP of its own (in place keeps the pod's)
    const ips = (await pods('hooked')).map((p) => p.status!.podIP);
    expect(ips).not.toContain(victim!.status!.podIP);
    expect(new Set(ips).size).toBe(2);
  });

  it('volumeClaimTemplates: local-path PVCs per instance id, reused by a replacement pod; disablePVCReuse and scale-in delete them', async () => {
    const claims = async () =>
      (
        (await sys.client.list(Resources.PersistentVolumeClaim, { namespace: 'default' }))
          .items as KubeObject[]
      )
        .filter((c) => c.metadata?.name?.startsWith('data-vols-') && !c.metadata.deletionTimestamp)
        .map((c) => c.metadata!.name!)
        .sort();
    const inPod = async (pod: string, script: string) => {
      const r = await kubectl(sys.kubeconfig, ['exec', pod, '-c', 'app', '--', 'sh', '-c', script]);
      if (r.status !== 0) throw new Error(`kubectl exec ${pod}: ${r.stderr}`);
      return r.stdout;
    };
    const idOf = (p: Pod) => p.metadata!.labels!['apps.kruise.io/cloneset-instance-id']!;
    await sys.client.create(
      KruiseResources.CloneSet,
      cloneSet('vols', {
        replicas: 2,
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
        template: {
          metadata: { labels: { app: 'vols' } },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [
              {
                name: 'app',
                image: image('v1'),
                command: LOOP,
                volumeMounts: [{ name: 'data', mountPath: '/data' }],
              },
            ],
          },
        },
      }),
    );
    await settled('vols', (st, p) => p.length === 2 && st.availableReplicas === 2, 60_000);
    const [first, second] = await pods('vols');
    expect(await claims()).toEqual([first, second].map((p) => `data-vols-${idOf(p!)}`).sort());
    for (const p of [first!, second!]) {
      const pvc = (await sys.client.get(
        Resources.PersistentVolumeClaim,
        'default',
        `data-vols-${idOf(p)}`,
      )) as KubeObject;
      expect(pvc.status?.phase).toBe('Bound');
      const pv = (await sys.client.get(
        Resources.PersistentVolume,
        undefined,
        pvc.spec.volumeName,
      )) as KubeObject;
      expect(pv.spec.hostPath.path.startsWith(sys.localPathRoot)).toBe(true);
      expect(p.spec!.volumes).toContainEqual({
        name: 'data',
        persistentVolumeClaim: { claimName: `data-vols-${idOf(p)}` },
      });
      await inPod(p.metadata!.name!, `echo written-by-${p.metadata!.uid} > /data/f`);
    }

    // a deleted pod (not a scale-in) is replaced under the same instance id, on the same claim and data
    await sys.client.delete(Resources.Pod, 'default', first!.metadata!.name!, { gracePeriodSeconds: 1 });
    const replaced = await settled(
      'vols',
      (st, p) =>
        st.availableReplicas === 2 &&
        p.length === 2 &&
        !p.some((x) => x.metadata!.uid === first!.metadata!.uid),
      60_000,
    ).then(() => pods('vols'));
    const successor = replaced.find((p) => idOf(p) === idOf(first!))!;
    expect(successor.metadata!.name).toBe(first!.metadata!.name);
    expect(await inPod(successor.metadata!.name!, 'cat /data/f')).toBe(
      `written-by-${first!.metadata!.uid}\n`,
    );
    expect(await claims()).toEqual([first, second].map((p) => `data-vols-${idOf(p!)}`).sort());

    // disablePVCReuse: the claim goes with its pod; the replacement gets a new id and an empty volume
    await sys.client.mergePatch(KruiseResources.CloneSet, 'default', 'vols', {
      spec: { scaleStrategy: { disablePVCReuse: true } },
    });
    await settled('vols', (st) => st.availableReplicas === 2);
    await sys.client.delete(Resources.Pod, 'default', second!.metadata!.name!, { gracePeriodSeconds: 1 });
    const fresh = await until(async () => {
      const p = await pods('vols');
      const n = p.find((x) => idOf(x) !== idOf(first!) && idOf(x) !== idOf(second!));
      const c = await claims();
      return n && status(n)?.ready && !c.includes(`data-vols-${idOf(second!)}`) ? n : undefined;
    }, 60_000);
    expect(await claims()).toEqual([successor, fresh].map((p) => `data-vols-${idOf(p)}`).sort());
    expect(await inPod(fresh.metadata!.name!, 'ls /data')).toBe('');

    // scale-in takes the pod and its claim
    await sys.client.mergePatch(KruiseResources.CloneSet, 'default', 'vols', { spec: { replicas: 1 } });
    await settled('vols', (st, p) => p.length === 1 && st.replicas === 1, 60_000);
    const [kept] = await pods('vols');
    await until(async () => ((await claims()).length === 1 ? true : undefined));
    expect(await claims()).toEqual([`data-vols-${idOf(kept!)}`]);
  }, 180_000);

  it('vertical scaling in place (gate InPlaceWorkloadVerticalScaling): new cpu for the same container, no restart, Ready throughout', async () => {
    const sized = (requests: string, limits: string) => ({
      metadata: { labels: { app: 'sized' } },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'app',
            image: image('v1'),
            command: LOOP,
            resources: {
              requests: { cpu: requests, memory: '32Mi' },
              limits: { cpu: limits, memory: '64Mi' },
            },
            resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
          },
        ],
      },
    });
    await sys.client.create(
      KruiseResources.CloneSet,
      cloneSet('sized', {
        replicas: 1,
        updateStrategy: { type: 'InPlaceIfPossible' },
        template: sized('100m', '200m'),
      }),
    );
    await settled('sized', (st, p) => st.availableReplicas === 1 && p.length === 1, 60_000);
    const [before] = await pods('sized');
    expect(status(before!).resources).toMatchObject({ limits: { cpu: '200m' } });
    await sys.client.mergePatch(KruiseResources.CloneSet, 'default', 'sized', {
      spec: { template: sized('150m', '300m') },
    });
    const readiness: string[] = [];
    const done = await until(async () => {
      const [cs, [p]] = await Promise.all([get('sized'), pods('sized')]);
      readiness.push(
        p?.status?.conditions?.find((c: { type: string }) => c.type === 'Ready')?.status ?? 'none',
      );
      const s = cs.status;
      return s?.observedGeneration === cs.metadata?.generation &&
        s?.updatedAvailableReplicas === 1 &&
        s.currentRevision === s.updateRevision &&
        status(p!)?.resources?.limits?.cpu === '300m'
        ? p
        : undefined;
    }, 60_000);
    expect(done!.metadata!.uid).toBe(before!.metadata!.uid);
    expect(done!.spec!.containers[0].resources).toEqual({
      requests: { cpu: '150m', memory: '32Mi' },
      limits: { cpu: '300m', memory: '64Mi' },
    });
    expect(status(done!)).toMatchObject({
      containerID: status(before!).containerID,
      restartCount: 0,
      resources: { requests: { cpu: '150m' }, limits: { cpu: '300m' } },
    });
    expect(readiness.filter((r) => r !== 'True')).toEqual([]);
  }, 120_000);
});
