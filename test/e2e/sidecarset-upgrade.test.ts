import { readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KruiseResources, type SidecarSet } from '@kruise/api';
import { type KubeObject, Resources, retryOnConflict } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagSameDigest } from '../bench/same-digest.ts';
import { LOOP, type System, startSystem, until } from './env.ts';

/**
 * SidecarSet upgrades end to end on a real runtime (containerd): kruise-manager rolls sidecar
 * images in place, one pod at a time, by partition and by selector; a non-image change is reported
 * as not upgradable; a hot upgrade never leaves a pod without a working sidecar (its heartbeat
 * probed every 100 ms); a native sidecar's image rolls in place. Pods are created plain: the pod
 * webhook injects the sidecars, the SidecarSet webhook stamps its hashes, as for a user.
 */
const NODE = 'ss-node';
let sys: System;
beforeAll(async () => {
  sys = await startSystem(NODE);
  // a third tag (busybox:v1's digest) for a second rollout
  tagSameDigest(sys.registry, ['ss-v3']);
}, 240_000);
afterAll(() => sys?.stop());

type Pod = KubeObject;
const image = (tag: string) => `${sys.registry}/busybox:${tag}`;
const statusOf = (p: Pod, name: string) =>
  [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])].find(
    (s: { name: string }) => s.name === name,
  );
const specOf = (p: Pod, name: string) =>
  [...(p.spec?.initContainers ?? []), ...(p.spec?.containers ?? [])].find(
    (c: { name: string }) => c.name === name,
  );
const ready = (p: Pod) =>
  p.status?.phase === 'Running' &&
  p.status?.conditions?.some(
    (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
  );
/** Whether the container runs the image its spec names (kubelet has caught up). */
const runs = (p: Pod, name: string, tag: string) =>
  specOf(p, name)?.image === image(tag) &&
  statusOf(p, name)?.image === image(tag) &&
  !!statusOf(p, name)?.ready;

function sidecarSet(name: string, spec: Record<string, unknown>): SidecarSet {
  return {
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'SidecarSet',
    metadata: { name },
    spec: { selector: { matchLabels: { app: name } }, ...spec },
  } as SidecarSet;
}
const getSs = async (name: string) =>
  (await sys.client.get(KruiseResources.SidecarSet, undefined, name)) as SidecarSet & KubeObject;
/** Changes the SidecarSet (its mutating webhook stamps the new hashes). */
const editSs = (name: string, edit: (s: SidecarSet) => void) =>
  retryOnConflict(async () => {
    const s = await getSs(name);
    edit(s);
    await sys.client.update(KruiseResources.SidecarSet, s as KubeObject);
  });
const pods = async (app: string) =>
  (await sys.client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${app}` })).items.sort(
    (a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!),
  );

/** A plain pod of SidecarSet `app` (no sidecar: the pod webhook injects them). */
const plainPod = (
  app: string,
  name: string,
  labels: Record<string, string> = {},
  spec: Pod['spec'] = {},
): Pod => ({
  metadata: { name, namespace: 'default', labels: { app, ...labels } },
  spec: {
    nodeName: NODE,
    terminationGracePeriodSeconds: 1,
    containers: [{ name: 'app', image: image('v1'), command: LOOP }],
    ...spec,
  },
});

/**
 * Creates the SidecarSet, waits until the pod webhook injects it (it reads SidecarSets from its
 * cache: a dry-run pod shows when), then creates the plain pods `names` and waits for them to run.
 */
async function start(
  name: string,
  spec: Record<string, unknown>,
  names: string[],
  labels: Record<string, string>[] = [],
  podSpec: Pod['spec'] = {},
) {
  await sys.client.create(KruiseResources.SidecarSet, sidecarSet(name, spec) as KubeObject);
  await until(async () => {
    const probe = await sys.client.create(Resources.Pod, plainPod(name, `probe-${name}`, {}, podSpec), {
      dryRun: true,
    });
    return probe.metadata?.annotations?.['kruise.io/sidecarset-injected-list']?.split(',').includes(name);
  }, 30_000);
  for (const [i, n] of names.entries())
    await sys.client.create(Resources.Pod, plainPod(name, n, labels[i], podSpec));
  return until(async () => {
    const list = await pods(name);
    return list.length === names.length && list.every(ready) ? list : undefined;
  }, 90_000);
}

describe('cold upgrade', () => {
  it('changes only the sidecar container, one pod at a time (maxUnavailable 1, sampled)', async () => {
    const before = await start(
      'cold',
      {
        containers: [{ name: 'sidecar', image: image('v1'), command: LOOP }],
        updateStrategy: { maxUnavailable: 1 },
      },
      ['cold-a', 'cold-b', 'cold-c'],
    );
    await editSs('cold', (s) => {
      s.spec!.containers![0]!.image = image('v2');
    });
    let peak = 0;
    const after = await until(
      async () => {
        const list = await pods('cold');
        peak = Math.max(
          peak,
          list.filter((p) => !ready(p) || (!runs(p, 'sidecar', 'v1') && !runs(p, 'sidecar', 'v2'))).length,
        );
        return list.every((p) => runs(p, 'sidecar', 'v2') && ready(p)) ? list : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    expect(peak).toBeLessThanOrEqual(1);
    for (const [i, p] of after.entries()) {
      const old = before[i]!;
      expect(p.metadata?.uid).toBe(old.metadata?.uid);
      expect(p.status?.podIP).toBe(old.status?.podIP);
      expect(statusOf(p, 'app')).toMatchObject({
        containerID: statusOf(old, 'app').containerID,
        restartCount: statusOf(old, 'app').restartCount,
      });
      expect(statusOf(p, 'sidecar').containerID).not.toBe(statusOf(old, 'sidecar').containerID);
    }
    expect(
      await until(async () => {
        const st = (await getSs('cold')).status;
        return st?.updatedReadyPods === 3 ? st : undefined;
      }, 30_000),
    ).toMatchObject({ matchedPods: 3, updatedPods: 3, readyPods: 3 });
  }, 240_000);

  it('holds back `partition` pods, then rolls only the pods the selector picks', async () => {
    await start(
      'canary',
      {
        containers: [{ name: 'sidecar', image: image('v1'), command: LOOP }],
        updateStrategy: { partition: 2, maxUnavailable: 3 },
      },
      ['canary-a', 'canary-b', 'canary-c'],
      [{}, {}, { zone: 'x' }],
    );
    await editSs('canary', (s) => {
      s.spec!.containers![0]!.image = image('v2');
    });
    const upgraded = async (tag: string) => (await pods('canary')).filter((p) => runs(p, 'sidecar', tag));
    await until(async () => ((await upgraded('v2')).length === 1 ? true : undefined), 90_000);
    await new Promise((r) => setTimeout(r, 2000));
    expect(await upgraded('v2')).toHaveLength(1);
    await editSs('canary', (s) => {
      s.spec!.updateStrategy = { selector: { matchLabels: { zone: 'x' } }, maxUnavailable: 3 };
      s.spec!.containers![0]!.image = image('ss-v3');
    });
    await until(async () => ((await upgraded('ss-v3')).length === 1 ? true : undefined), 90_000);
    await new Promise((r) => setTimeout(r, 2000));
    expect((await upgraded('ss-v3')).map((p) => p.metadata?.name)).toEqual(['canary-c']);
  }, 240_000);

  it('reports a change beyond the image as not upgradable and leaves the pod alone', async () => {
    const [before] = await start(
      'immutable',
      { containers: [{ name: 'sidecar', image: image('v1'), command: LOOP }] },
      ['immutable-a'],
    );
    await editSs('immutable', (s) => {
      s.spec!.containers![0] = {
        name: 'sidecar',
        image: image('v2'),
        command: LOOP,
        env: [{ name: 'A', value: 'b' }],
      };
    });
    const pod = await until(async () => {
      const p = (await pods('immutable'))[0]!;
      return p.status?.conditions?.some(
        (c: { type: string; status: string; reason?: string }) =>
          c.type === 'SidecarSetUpgradable' && c.status === 'False' && c.reason === 'UpdateImmutableField',
      )
        ? p
        : undefined;
    }, 60_000);
    expect(specOf(pod, 'sidecar').image).toBe(image('v1'));
    expect(statusOf(pod, 'sidecar').containerID).toBe(statusOf(before!, 'sidecar').containerID);
  }, 180_000);
});

/**
 * The hot sidecar's work: after a warm-up of 1.5 s (as a proxy loading its configuration) it marks
 * itself serving, then every 50 ms writes its `SIDECARSET_VERSION` to `/hb/beat` (atomically,
 * through a file of its own). The copy at the empty image has version "0" (injection and the flip
 * set it so): it only waits, as an empty image would. The warm-up makes any moment without a
 * serving copy (one copy stopped before the other serves) last longer than STALE_MS.
 */
const HEARTBEAT = [
  'sh',
  '-c',
  `trap 'exit 0' TERM
if [ "$SIDECARSET_VERSION" = 0 ]; then while true; do sleep 0.2; done; fi
sleep 1.5; touch /tmp/serving
while true; do
  echo "$SIDECARSET_VERSION" > "/hb/.beat-$SIDECARSET_VERSION" && mv "/hb/.beat-$SIDECARSET_VERSION" /hb/beat
  sleep 0.05
done`,
];
/** Ready once serving (the empty copy at once): the controller flips only when the new copy is ready. */
const SERVING = {
  exec: { command: ['sh', '-c', '[ "$SIDECARSET_VERSION" = 0 ] || [ -f /tmp/serving ]'] },
  periodSeconds: 1,
};
/** A heartbeat older than this means no sidecar copy is working (20 beats missed: room for a loaded machine). */
const STALE_MS = 1000;

/** One probe of the heartbeat: the version that wrote it, or why the probe failed. */
interface Beat {
  at: number;
  version?: string;
  failure?: string;
}

/**
 * Pod `uid`'s heartbeat file seen from the node: the local node keeps an emptyDir at
 * `<root>/pods/<uid>/volumes/kubernetes.io~empty-dir/<name>` (its default root:
 * `kruise-kubelet-<node>` in the temporary directory).
 */
const heartbeatFile = (uid: string) =>
  join(tmpdir(), `kruise-kubelet-${NODE}`, 'pods', uid, 'volumes', 'kubernetes.io~empty-dir', 'hb', 'beat');

/**
 * Probes the heartbeat `file` every 100 ms; a probe fails when the file is missing, empty, written
 * by the empty copy, or stale. `stop` ends the probing and resolves with every probe.
 */
function probeHeartbeat(file: string): { stop: () => Promise<Beat[]> } {
  const beats: Beat[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const at = Date.now();
      try {
        const version = readFileSync(file, 'utf8').trim();
        const age = at - statSync(file).mtimeMs;
        if (!version || version === '0') beats.push({ at, failure: `version "${version}"` });
        else if (age > STALE_MS) beats.push({ at, version, failure: `heartbeat ${Math.round(age)} ms old` });
        else beats.push({ at, version });
      } catch (err) {
        beats.push({ at, failure: (err as Error).message });
      }
      await new Promise((r) => setTimeout(r, Math.max(0, at + 100 - Date.now())));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return beats;
    },
  };
}

describe('hot upgrade', () => {
  it("keeps the sidecar's heartbeat fresh through the upgrade and the flip (probed every 100 ms)", async () => {
    const empty = image('v1');
    const [before] = await start(
      'hot',
      {
        containers: [
          {
            name: 'proxy',
            image: image('v2'),
            command: HEARTBEAT,
            readinessProbe: SERVING,
            volumeMounts: [{ name: 'hb', mountPath: '/hb' }],
            upgradeStrategy: { upgradeType: 'HotUpgrade', hotUpgradeEmptyImage: empty },
          },
        ],
        volumes: [{ name: 'hb', emptyDir: {} }],
      },
      ['hot-a'],
      [],
      {
        containers: [
          {
            name: 'app',
            image: image('v1'),
            command: LOOP,
            volumeMounts: [{ name: 'hb', mountPath: '/hb' }],
          },
        ],
        volumes: [{ name: 'hb', emptyDir: {} }],
      },
    );
    const file = heartbeatFile(before!.metadata!.uid!);
    // the working copy beats before the upgrade starts
    await until(() => Date.now() - statSync(file).mtimeMs < STALE_MS, 30_000);
    const probe = probeHeartbeat(file);
    await new Promise((r) => setTimeout(r, 1000));
    await editSs('hot', (s) => {
      s.spec!.containers![0]!.image = image('ss-v3');
    });
    let gaps = 0;
    const done = await until(
      async () => {
        const p = (await pods('hot'))[0]!;
        const serving = ['proxy-1', 'proxy-2'].some(
          (c) =>
            specOf(p, c)?.image !== empty &&
            statusOf(p, c)?.ready &&
            statusOf(p, c)?.image === specOf(p, c)?.image,
        );
        if (!serving) gaps++;
        return runs(p, 'proxy-2', 'ss-v3') && runs(p, 'proxy-1', 'v1') && ready(p) ? p : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    // after the flip the old copy restarted at the empty image: it must not take the heartbeat over
    await new Promise((r) => setTimeout(r, 2000));
    const beats = await probe.stop();
    expect(beats.length).toBeGreaterThan(20);
    expect(beats.filter((b) => b.failure)).toEqual([]);
    expect(gaps).toBe(0);
    expect(
      JSON.parse(done.metadata?.annotations['kruise.io/sidecarset-working-hotupgrade-container']),
    ).toEqual({
      proxy: 'proxy-2',
    });
    const newVersion = done.metadata?.annotations['version.sidecarset.kruise.io/proxy-2'];
    expect(newVersion).not.toBe('1');
    // the old copy (injected with version 1) served first, the new one (the SidecarSet's version) last
    expect(beats[0]?.version).toBe('1');
    expect(beats.at(-1)?.version).toBe(newVersion);
    expect(beats.slice(-10).every((b) => b.version === newVersion)).toBe(true);
  }, 240_000);
});

describe('native sidecars (beyond upstream)', () => {
  it("rolls a native sidecar's image in place", async () => {
    const [before] = await start(
      'native',
      { initContainers: [{ name: 'agent', image: image('v1'), command: LOOP, restartPolicy: 'Always' }] },
      ['native-a'],
    );
    await editSs('native', (s) => {
      s.spec!.initContainers![0]!.image = image('v2');
    });
    const after = await until(async () => {
      const p = (await pods('native'))[0]!;
      return runs(p, 'agent', 'v2') && ready(p) ? p : undefined;
    }, 120_000);
    expect(after.metadata?.uid).toBe(before!.metadata?.uid);
    expect(statusOf(after, 'app').containerID).toBe(statusOf(before!, 'app').containerID);
  }, 240_000);
});
