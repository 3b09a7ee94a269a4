import { KruiseResources, type SidecarSet } from '@kruise/api';
import { type KubeObject, Resources, retryOnConflict } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagSameDigest } from '../bench/same-digest.ts';
import { injectedPod, stampedSidecarSet } from '../support/sidecarset.ts';
import { LOOP, type System, startSystem, until } from './env.ts';

/**
 * SidecarSet upgrades end to end on a real runtime (containerd): kruise-manager rolls sidecar
 * images in place, one pod at a time, by partition and by selector; a non-image change is reported
 * as not upgradable; a hot upgrade never leaves a pod without a running sidecar; a native sidecar's
 * image rolls in place. Pods are created as the injection webhook leaves them.
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
/** Changes the SidecarSet and stamps its hashes (as its mutating webhook does). */
const editSs = (name: string, edit: (s: SidecarSet) => void) =>
  retryOnConflict(async () => {
    const s = await getSs(name);
    edit(s);
    await sys.client.update(KruiseResources.SidecarSet, stampedSidecarSet(s) as KubeObject);
  });
const pods = async (app: string) =>
  (await sys.client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${app}` })).items.sort(
    (a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!),
  );

/** Creates the SidecarSet and `names` pods injected with it, and waits for them to run. */
async function start(
  name: string,
  spec: Record<string, unknown>,
  names: string[],
  labels: Record<string, string>[] = [],
) {
  await sys.client.create(
    KruiseResources.SidecarSet,
    stampedSidecarSet(sidecarSet(name, spec)) as KubeObject,
  );
  const stored = await until(async () => {
    const s = await getSs(name);
    return s.status?.latestRevision ? s : undefined;
  }, 30_000);
  for (const [i, n] of names.entries())
    await sys.client.create(
      Resources.Pod,
      injectedPod(
        stored,
        {
          metadata: { name: n, namespace: 'default', labels: { app: name, ...labels[i] } },
          spec: {
            nodeName: NODE,
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'app', image: image('v1'), command: LOOP }],
          },
        },
        { command: LOOP },
      ),
    );
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

describe('hot upgrade', () => {
  it('keeps a sidecar copy running and ready at every moment (sampled every 100 ms)', async () => {
    const empty = image('v1');
    await start(
      'hot',
      {
        containers: [
          {
            name: 'proxy',
            image: image('v2'),
            command: LOOP,
            upgradeStrategy: { upgradeType: 'HotUpgrade', hotUpgradeEmptyImage: empty },
          },
        ],
      },
      ['hot-a'],
    );
    await editSs('hot', (s) => {
      s.spec!.containers![0]!.image = image('ss-v3');
    });
    let gaps = 0;
    let samples = 0;
    const done = await until(
      async () => {
        const p = (await pods('hot'))[0]!;
        samples++;
        const serving = ['proxy-1', 'proxy-2'].some(
          (c) =>
            specOf(p, c)?.image !== empty &&
            statusOf(p, c)?.ready &&
            statusOf(p, c)?.image === specOf(p, c)?.image,
        );
        if (!serving) gaps++;
        return runs(p, 'proxy-2', 'ss-v3') && specOf(p, 'proxy-1')?.image === empty && ready(p)
          ? p
          : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    expect(samples).toBeGreaterThan(5);
    expect(gaps).toBe(0);
    expect(
      JSON.parse(done.metadata?.annotations['kruise.io/sidecarset-working-hotupgrade-container']),
    ).toEqual({
      proxy: 'proxy-2',
    });
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
