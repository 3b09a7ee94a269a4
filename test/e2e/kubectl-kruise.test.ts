import { spawn } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { type CloneSet, KruiseResources } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PodDisruptionBudgets } from '../../packages/kubectl-kruise/src/restart-in-place/limits.ts';
import { type PluginRunner, pluginRunner } from '../../packages/kubectl-kruise/test/plugin-env.ts';
import { kubectlPath } from '../support/kube-tools.ts';
import { LOOP, type System, startSystem, until } from './env.ts';

/**
 * `kubectl kruise` on a real node (exec, create ContainerRecreateRequest, rollout restart --in-place, set image, rollout; CloneSet and Advanced StatefulSet): the real
 * kubectl runs the plugin from PATH against the control plane, kruise-manager, kruise-daemon and a
 * local node on containerd; containers really restart inside the same pods.
 */
const NODE = 'kruise-cli-node';
let sys: System;
let plugin: PluginRunner;
beforeAll(async () => {
  sys = await startSystem(NODE);
  plugin = pluginRunner(sys.cp);
  // `exec` hands over to kubectl: the pinned one is the `kubectl` on the plugin's PATH
  symlinkSync(kubectlPath(), join(plugin.dir, 'bin', 'kubectl'));
}, 120_000);
afterAll(async () => {
  plugin?.dispose();
  await sys?.stop();
});

/** A run of `kubectl kruise …` that can be watched line by line and killed. */
function kruise(args: string[], onOut: (text: string) => void = () => {}) {
  const child = spawn(kubectlPath(), ['kruise', ...args], {
    env: {
      PATH: `${join(plugin.dir, 'bin')}${delimiter}${process.env.PATH}`,
      HOME: plugin.dir,
      KUBECONFIG: plugin.kubeconfig,
    },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => {
    out += c;
    onOut(out);
  });
  child.stderr.on('data', (c) => (err += c));
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, out, err })),
  );
  return { child, done };
}

const FAST = ['--unready-grace-period-seconds=1', '--min-started-seconds=1'];
const ready = (p: KubeObject) =>
  p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True') === true;
const pods = async (app: string) =>
  (await sys.client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${app}` })).items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .sort((a, b) => a.metadata!.name.localeCompare(b.metadata!.name));
const restarts = (p: KubeObject) =>
  Object.fromEntries(p.status!.containerStatuses!.map((s: any) => [s.name, s.restartCount]));

/** Samples the pods every 100 ms while a restart runs: the most not Ready at once, and every UID seen. */
function sampler(app: string) {
  let maxNotReady = 0;
  const uids = new Set<string>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const list = await pods(app).catch(() => undefined);
      for (const p of list ?? []) uids.add(p.metadata!.uid);
      if (list) maxNotReady = Math.max(maxNotReady, list.filter((p) => !ready(p)).length);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { maxNotReady, uids };
    },
  };
}

const cloneSet = (name: string, replicas: number, maxUnavailable: number | string, container: object) => ({
  metadata: { name, namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    updateStrategy: { maxUnavailable },
    template: {
      metadata: { labels: { app: name } },
      spec: { terminationGracePeriodSeconds: 1, ...container },
    },
  },
});

/** The fleet: a CloneSet of 4 two-container pods, maxUnavailable 50%. */
beforeAll(async () => {
  await sys.client.create(
    KruiseResources.CloneSet,
    cloneSet('fleet', 4, '50%', {
      containers: ['app', 'side'].map((name) => ({
        name,
        image: `${sys.registry}/busybox:v1`,
        command: LOOP,
      })),
    }),
  );
  await until(async () => {
    const p = await pods('fleet');
    return p.length === 4 && p.every(ready) ? p : undefined;
  }, 60_000);
}, 90_000);

describe('kubectl kruise exec and create ContainerRecreateRequest', () => {
  beforeAll(async () => {
    await sys.client.create(Resources.Pod, {
      metadata: {
        name: 'hot',
        namespace: 'default',
        annotations: { 'kruise.io/sidecarset-working-hotupgrade-container': '{"sidecar":"sidecar-2"}' },
      },
      spec: {
        nodeName: NODE,
        terminationGracePeriodSeconds: 1,
        containers: ['app', 'sidecar-1', 'sidecar-2'].map((name) => ({
          name,
          image: `${sys.registry}/busybox:v1`,
          command: LOOP,
          env: [{ name: 'WHO', value: name }],
        })),
      },
    });
    await until(async () => ready(await sys.client.get(Resources.Pod, 'default', 'hot')), 60_000);
  });

  it('-S enters the working copy of a hot-upgrade sidecar; the exit code is the command’s', async () => {
    const sidecar = await plugin.kruise(['exec', 'hot', '-S', 'sidecar', '--', 'sh', '-c', 'echo $WHO']);
    expect(sidecar).toMatchObject({
      code: 0,
      out: 'sidecar-2\n',
      err: 'Enter working container sidecar-2 of SidecarSet.\n',
    });
    const app = await plugin.kruise(['exec', 'pod/hot', '-c', 'app', '--', 'sh', '-c', 'echo $WHO; exit 3']);
    expect(app).toMatchObject({ code: 3, out: 'app\n', err: 'command terminated with exit code 3\n' });
    const first = await plugin.kruise(['exec', 'cloneset/fleet', '-c', 'side', '--', 'sh', '-c', 'echo ok']);
    expect(first).toMatchObject({ code: 0, out: 'ok\n' });
    expect(await plugin.kruise(['exec', 'hot'])).toMatchObject({
      code: 1,
      err: 'error: you must specify at least one command for the container\n',
    });
  });

  it('create ContainerRecreateRequest restarts the named container of the pod, and only it', async () => {
    const r = await plugin.kruise([
      'create',
      'ContainerRecreateRequest',
      'hot-app',
      '--pod=hot',
      '--containers=app',
      '--unreadyGracePeriodSeconds=0',
      '-m',
      '1',
    ]);
    expect(r).toMatchObject({
      code: 0,
      out: 'containerrecreaterequest.apps.kruise.io/hot-app created\n',
      err: '',
    });
    const done = await until(async () => {
      const c = await sys.client.get(KruiseResources.ContainerRecreateRequest, 'default', 'hot-app');
      return c.status?.phase === 'Completed' ? c : undefined;
    }, 60_000);
    expect(done.status.containerRecreateStates).toEqual([
      { name: 'app', phase: 'Succeeded', isKilled: true },
    ]);
    const pod = await sys.client.get(Resources.Pod, 'default', 'hot');
    expect(restarts(pod)).toEqual({ app: 1, 'sidecar-1': 0, 'sidecar-2': 0 });
  });
});

describe('kubectl kruise rollout restart --in-place', () => {
  it('restarts every container of every pod in place, never more not Ready than maxUnavailable (50% of 4)', async () => {
    const before = await until(async () => {
      const p = await pods('fleet');
      return p.length === 4 && p.every(ready) ? p : undefined;
    }, 60_000);
    const sample = sampler('fleet');
    const r = await kruise([
      'rollout',
      'restart',
      '--in-place',
      'cloneset/fleet',
      '--reason=rotate certs',
      ...FAST,
    ]).done;
    const seen = await sample.stop();
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toMatch(
      /^restarting 4 pods of cloneset\.apps\.kruise\.io\/fleet in place \(restart \d{8}-\d{6}\), at most 2 at a time$/,
    );
    expect(lines.filter((l) => / restarting in place \(containerrecreaterequest\//.test(l))).toHaveLength(4);
    expect(lines.filter((l) => /^pod\/fleet-\w+ restarted in place \([1-4]\/4\)$/.test(l))).toHaveLength(4);
    expect(lines.at(-1)).toBe('cloneset.apps.kruise.io/fleet restarted in place');
    expect(seen.maxNotReady).toBeGreaterThanOrEqual(1); // the sampler saw restarts under way
    expect(seen.maxNotReady).toBeLessThanOrEqual(2);
    const after = await pods('fleet');
    expect(seen.uids).toEqual(new Set(before.map((p) => p.metadata!.uid)));
    expect(after.map((p) => p.metadata!.uid)).toEqual(before.map((p) => p.metadata!.uid));
    const cs = await sys.client.get(KruiseResources.CloneSet, 'default', 'fleet');
    const record = JSON.parse(cs.metadata!.annotations!['apps.kruise.io/in-place-restart']);
    expect(record).toMatchObject({ reason: 'rotate certs', completedAt: expect.any(String) });
    for (const [i, p] of after.entries()) {
      expect(restarts(p)).toEqual({ app: restarts(before[i]!).app + 1, side: restarts(before[i]!).side + 1 });
      expect(ready(p)).toBe(true);
      expect(JSON.parse(p.metadata!.annotations!['apps.kruise.io/in-place-restarted'])).toMatchObject({
        id: record.id,
        reason: 'rotate certs',
      });
    }
  });

  it('keeps a PodDisruptionBudget tighter than maxUnavailable, and a re-run resumes an interrupted restart', async () => {
    await sys.client.create(PodDisruptionBudgets, {
      metadata: { name: 'fleet', namespace: 'default' },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'fleet' } } },
    });
    const before = await pods('fleet');
    const sample = sampler('fleet');
    const first = kruise(['rollout', 'restart', '--in-place', 'cloneset/fleet', ...FAST], (out) => {
      if (out.includes('restarted in place (1/4)') && !first.child.killed) first.child.kill('SIGINT');
    });
    const stopped = await first.done;
    expect(stopped).toMatchObject({
      code: 1,
      err: 'error: interrupted: the in-place restart of cloneset.apps.kruise.io/fleet is not complete; run the command again to resume it\n',
    });
    const pending = JSON.parse(
      (await sys.client.get(KruiseResources.CloneSet, 'default', 'fleet')).metadata!.annotations![
        'apps.kruise.io/in-place-restart'
      ],
    );
    expect(pending.completedAt).toBeUndefined();
    const resumed = await kruise(['rollout', 'restart', '--in-place', 'cloneset/fleet', ...FAST]).done;
    const seen = await sample.stop();
    expect(resumed.err).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.out).toContain(`resuming in-place restart ${pending.id} of cloneset.apps.kruise.io/fleet`);
    expect(resumed.out).not.toContain('(1/4)'); // the pod done before the interruption is not restarted again
    expect(resumed.out).toContain('restarted in place (4/4)');
    expect(seen.maxNotReady).toBe(1);
    const after = await pods('fleet');
    expect(after.map((p) => p.metadata!.uid)).toEqual(before.map((p) => p.metadata!.uid));
    for (const [i, p] of after.entries()) expect(restarts(p).app).toBe(restarts(before[i]!).app + 1);
  });

  it("exits 1 with the request's message when a pod's containers do not come back", async () => {
    // the container refuses to start a second time in the same pod (its emptyDir remembers)
    await sys.client.create(
      KruiseResources.CloneSet,
      cloneSet('fragile', 1, 1, {
        volumes: [{ name: 'state', emptyDir: {} }],
        containers: [
          {
            name: 'app',
            image: `${sys.registry}/busybox:v1`,
            command: ['sh', '-c', `[ -f /state/ran ] && exit 1; touch /state/ran; ${LOOP[2]}`],
            volumeMounts: [{ name: 'state', mountPath: '/state' }],
          },
        ],
      }),
    );
    await until(async () => {
      const p = await pods('fragile');
      return p.length === 1 && p.every(ready) ? p : undefined;
    }, 60_000);
    const r = await kruise([
      'rollout',
      'restart',
      '--in-place',
      'cloneset/fragile',
      '--active-deadline-seconds=5',
      ...FAST,
    ]).done;
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^error: ContainerRecreateRequest default\/fragile-\w+-restart-\d{8}-\d{6} for pod fragile-\w+ failed: recreating has exceeded the activeDeadlineSeconds\n$/,
    );
  });
});

/**
 * `kubectl kruise set image` sends only the image change, so the CloneSet updates its pods in place
 * on containerd (same pod UIDs, one container restart); `rollout status` follows that update to its
 * end, and `rollout undo` goes back the same way.
 */
const image = (tag: string) => `${sys.registry}/busybox:${tag}`;
const setImagePods = async (app = 'setimage') =>
  (
    (await sys.client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${app}` }))
      .items as KubeObject[]
  )
    .filter((p) => !p.metadata?.deletionTimestamp)
    .sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
/** Waits until the workload (a CloneSet by default) observed its generation and every pod runs `tag`, ready. */
const allAt = (tag: string, resource = KruiseResources.CloneSet, app = 'setimage') =>
  until(async () => {
    const cs = (await sys.client.get(resource, 'default', app)) as CloneSet & KubeObject;
    if (cs.status?.observedGeneration !== cs.metadata?.generation || cs.status?.updatedReadyReplicas !== 2)
      return undefined;
    const p = await setImagePods(app);
    const ok = p.length === 2 && p.every((x) => x.status?.containerStatuses?.[0]?.image === image(tag));
    return ok && p.every((x) => x.status?.containerStatuses?.[0]?.ready) ? p : undefined;
  }, 60_000);

describe('kubectl kruise set image and rollout on a real node', () => {
  it('set image updates the pods in place: same UIDs, one restart; rollout status follows it; undo too', async () => {
    await sys.client.create(KruiseResources.CloneSet, {
      metadata: { name: 'setimage', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'setimage' } },
        updateStrategy: { type: 'InPlaceIfPossible' },
        template: {
          metadata: { labels: { app: 'setimage' } },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [
              { name: 'app', image: image('v1'), command: LOOP, env: [{ name: 'MODE', value: 'a' }] },
            ],
          },
        },
      },
    });
    const before = await allAt('v1');
    const uids = before.map((p) => p.metadata!.uid);

    const set = await plugin.kruise(['set', 'image', 'cloneset/setimage', `app=${image('v2')}`]);
    expect(set).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/setimage image updated\n', err: '' });
    const status = await plugin.kruise(['rollout', 'status', 'cloneset/setimage', '--timeout=90s']);
    expect(status.code).toBe(0);
    expect(status.out.trim().split('\n').at(-1)).toBe(
      'partitioned roll out complete: 2 new pods have been updated...',
    );
    const after = await allAt('v2');
    expect(after.map((p) => p.metadata!.uid)).toEqual(uids);
    expect(after.map((p) => p.status!.containerStatuses![0]!.restartCount)).toEqual([1, 1]);

    const undo = await plugin.kruise(['rollout', 'undo', 'cloneset/setimage']);
    expect(undo).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/setimage rolled back\n', err: '' });
    const back = await allAt('v1');
    expect(back.map((p) => p.metadata!.uid)).toEqual(uids);
    expect(back.map((p) => p.status!.containerStatuses![0]!.restartCount)).toEqual([2, 2]);
  });
});

/**
 * The same on an Advanced StatefulSet (`asts`): `set image` updates its pods in place on containerd
 * (same UIDs, one container restart), `rollout status` returns once that is really done, and
 * `rollout undo` goes back in place.
 */
describe('kubectl kruise set image and rollout on an Advanced StatefulSet on a real node', () => {
  it('set image updates the pods in place: same UIDs, one restart; rollout status follows it; undo too', async () => {
    await sys.client.create(KruiseResources.StatefulSet, {
      metadata: { name: 'astsimage', namespace: 'default' },
      spec: {
        replicas: 2,
        serviceName: 'astsimage',
        selector: { matchLabels: { app: 'astsimage' } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible' } },
        template: {
          metadata: { labels: { app: 'astsimage' } },
          spec: {
            readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'app', image: image('v1'), command: LOOP }],
          },
        },
      },
    });
    const before = await allAt('v1', KruiseResources.StatefulSet, 'astsimage');
    const uids = before.map((p) => p.metadata!.uid);
    expect(before.map((p) => p.metadata!.name)).toEqual(['astsimage-0', 'astsimage-1']);

    const set = await plugin.kruise(['set', 'image', 'asts/astsimage', `app=${image('v2')}`]);
    expect(set).toMatchObject({
      code: 0,
      out: 'statefulset.apps.kruise.io/astsimage image updated\n',
      err: '',
    });
    const status = await plugin.kruise(['rollout', 'status', 'asts/astsimage', '--timeout=90s']);
    expect(status).toMatchObject({ code: 0, err: '' });
    expect(status.out.trim().split('\n').at(-1)).toMatch(
      /^Advanced StatefulSet rolling update complete 2 pods at revision astsimage-\w+\.\.\.$/,
    );
    // done means done: both pods already run v2 in their restarted container, ready
    const now = await setImagePods('astsimage');
    expect(
      now.map((p) => {
        const c = p.status!.containerStatuses![0]!;
        return [p.metadata!.uid, c.image, c.restartCount, c.ready];
      }),
    ).toEqual(uids.map((uid) => [uid, image('v2'), 1, true]));

    const undo = await plugin.kruise(['rollout', 'undo', 'asts/astsimage']);
    expect(undo).toMatchObject({
      code: 0,
      out: 'statefulset.apps.kruise.io/astsimage rolled back\n',
      err: '',
    });
    const back = await allAt('v1', KruiseResources.StatefulSet, 'astsimage');
    expect(back.map((p) => p.metadata!.uid)).toEqual(uids);
    expect(back.map((p) => p.status!.containerStatuses![0]!.restartCount)).toEqual([2, 2]);
  });
});
