import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonSet, KruiseResources } from '@kruise/api';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { installKruiseApi, pointWebhookService, withdrawWebhooks } from '@kruise/stack/cluster-bootstrap';
import type { Program } from '@kruise/stack/program';
import { startDaemonProcess, startManagerProcess } from '@kruise/stack/program-recipes';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestNodes, type TestNodes } from '../support/local-nodes.ts';
import { eventually } from '../support/poll.ts';
import { LOOP } from './env.ts';

/**
 * Advanced DaemonSet end to end on three local nodes, each on its own containerd with its own
 * kruise-daemon, and kruise-manager as a process: one pod per node, a node that joins later, taints
 * and cordons, NoExecute eviction, image pre-download before a paused update, an in-place image
 * update one node at a time (same pods, never more than one node unavailable, sampled every
 * 100 ms), surge with old and new side by side and never a node without a Ready pod,
 * rollingUpdate.selector, partition and paused, the preDelete hook, and a refusal.
 */
const registry = inject('registry');
const criStackDir = inject('criStackDir');
let cp: ControlPlane;
let client: KubeClient;
let cluster: TestNodes;
let late: TestNodes | undefined;
let manager: Program;
/** kruise-daemon of each node (image pre-download pulls through them). */
const daemons: Program[] = [];
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ads-e2e-'));
  cp = await ControlPlane.start();
  client = KubeClient.fromString(cp.kubeconfig());
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cp.kubeconfig());
  await installKruiseApi(client);
  const started = await startManagerProcess(kubeconfig, [
    '--feature-gates=PreDownloadImageForDaemonSetUpdate=true',
    // NodeImages (what image pulls go through) as soon as a node is Ready
    '--nodeimage-creation-delay=0s',
  ]);
  manager = started.program;
  await pointWebhookService(client, started.webhookPort);
  cluster = await startTestNodes(client, { count: 3, base: 'ads', criStackDir, registry });
  for (const n of cluster.nodes)
    daemons.push(await startDaemonProcess(kubeconfig, n.name, `unix://${n.socket}`));
}, 240_000);
afterAll(async () => {
  await manager?.stop();
  if (client) await withdrawWebhooks(client);
  await Promise.all(daemons.map((d) => d.stop()));
  const pods = await client?.list(Resources.Pod, { namespace: 'default' }).catch(() => undefined);
  for (const p of pods?.items ?? [])
    await client
      .delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 1 })
      .catch(() => undefined);
  await eventually(async () => (await client.list(Resources.Pod)).items.length === 0, 60_000, 200).catch(
    () => undefined,
  );
  await late?.stop();
  await cluster?.stop();
  await cp?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Ds = DaemonSet & KubeObject;
/** A pod as the API returns it. */
type Pod = KubeObject;
const image = (tag: string) => `${registry}/busybox:${tag}`;
const daemonSet = (
  name: string,
  spec: Record<string, unknown> = {},
  podSpec: Record<string, unknown> = {},
) => ({
  apiVersion: 'apps.kruise.io/v1beta1',
  kind: 'DaemonSet',
  metadata: { name, namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        terminationGracePeriodSeconds: 1,
        readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
        containers: [{ name: 'app', image: image('v1'), command: LOOP }],
        ...podSpec,
      },
    },
    ...spec,
  },
});
const create = (obj: object) => client.create(KruiseResources.DaemonSet, obj as KubeObject);
const get = (name: string) => client.get<Ds>(KruiseResources.DaemonSet, 'default', name);
const pods = async (name: string, all = false) =>
  (
    (await client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${name}` })).items as Pod[]
  ).filter((p) => all || !p.metadata?.deletionTimestamp);
const ready = (p: Pod) =>
  p.status?.conditions?.find((c: { type: string }) => c.type === 'Ready')?.status === 'True';
const nodeOf = (p: Pod) => p.spec?.nodeName ?? '';
const imageOf = (p: Pod) => p.spec?.containers?.[0]?.image;
const setImage = (name: string, tag: string) =>
  client.mergePatch(KruiseResources.DaemonSet, 'default', name, {
    spec: { template: { spec: { containers: [{ name: 'app', image: image(tag), command: LOOP }] } } },
  });
/** Waits until the DaemonSet observed its generation and `check` holds for its status and pods. */
const settled = (name: string, check: (ds: Ds, pods: Pod[]) => boolean, timeoutMs = 90_000) =>
  eventually(
    async () => {
      const ds = await get(name);
      const ps = await pods(name);
      return ds.status?.observedGeneration === ds.metadata?.generation && check(ds, ps)
        ? { ds, pods: ps }
        : undefined;
    },
    timeoutMs,
    200,
  );
const allOn = (n: number) => (ds: Ds, ps: Pod[]) =>
  ds.status?.numberAvailable === n &&
  ds.status.updatedNumberScheduled === n &&
  ps.length === n &&
  ps.every(ready);

/** Samples the pods every 100 ms while `run` goes; returns what `sample` saw each time. */
async function sampling<T>(name: string, sample: (pods: Pod[]) => T, run: () => Promise<void>): Promise<T[]> {
  const seen: T[] = [];
  let done = false;
  const loop = (async () => {
    while (!done) {
      seen.push(sample(await pods(name, true)));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    await run();
  } finally {
    done = true;
    await loop;
  }
  return seen;
}

describe('Advanced DaemonSet on three local nodes', () => {
  it('runs one pod per node and updates its image in place, one node at a time, keeping the pods', async () => {
    await create(
      daemonSet('agent', {
        updateStrategy: { rollingUpdate: { rollingUpdateType: 'InPlaceIfPossible', maxUnavailable: 1 } },
      }),
    );
    const first = await settled('agent', allOn(3));
    expect(first.pods.map(nodeOf).sort()).toEqual(['ads', 'ads-2', 'ads-3']);
    const uids = first.pods.map((p) => p.metadata?.uid).sort();
    const unavailable = await sampling(
      'agent',
      (ps) => 3 - ps.filter((p) => ready(p) && !p.metadata?.deletionTimestamp).length,
      async () => {
        await setImage('agent', 'v2');
        await settled('agent', (ds, ps) => allOn(3)(ds, ps) && ps.every((p) => imageOf(p) === image('v2')));
      },
    );
    expect(Math.max(...unavailable)).toBeLessThanOrEqual(1);
    const after = await pods('agent');
    expect(after.map((p) => p.metadata?.uid).sort()).toEqual(uids);
    for (const p of after) expect(p.status?.containerStatuses?.[0]?.restartCount).toBe(1);
  }, 180_000);

  it('surges: a new pod starts beside the old one, and no node is ever without a Ready pod', async () => {
    await create(daemonSet('surge', { updateStrategy: { rollingUpdate: { maxSurge: 1 } } }));
    await settled('surge', allOn(3));
    const samples = await sampling(
      'surge',
      (ps) => {
        const byNode = new Map<string, Pod[]>();
        for (const p of ps) byNode.set(nodeOf(p), [...(byNode.get(nodeOf(p)) ?? []), p]);
        return {
          sideBySide: [...byNode.values()].some((l) => l.length === 2),
          withoutReady: ['ads', 'ads-2', 'ads-3'].filter((n) => !(byNode.get(n) ?? []).some(ready)).length,
        };
      },
      async () => {
        await setImage('surge', 'v2');
        await settled('surge', (ds, ps) => allOn(3)(ds, ps) && ps.every((p) => imageOf(p) === image('v2')));
      },
    );
    expect(samples.some((s) => s.sideBySide)).toBe(true);
    expect(samples.every((s) => s.withoutReady === 0)).toBe(true);
  }, 180_000);

  it('updates only the nodes rollingUpdate.selector picks', async () => {
    await client.mergePatch(Resources.Node, undefined, 'ads-2', { metadata: { labels: { canary: 'true' } } });
    await create(
      daemonSet('canary', {
        updateStrategy: {
          rollingUpdate: {
            rollingUpdateType: 'InPlaceIfPossible',
            selector: { matchLabels: { canary: 'true' } },
          },
        },
      }),
    );
    await settled('canary', allOn(3));
    await setImage('canary', 'v2');
    const { pods: ps } = await settled(
      'canary',
      (ds, p) => ds.status?.updatedNumberScheduled === 1 && p.every(ready),
    );
    expect(Object.fromEntries(ps.map((p) => [nodeOf(p), imageOf(p)]))).toEqual({
      ads: image('v1'),
      'ads-2': image('v2'),
      'ads-3': image('v1'),
    });
  }, 120_000);

  it('pre-downloads the next image on every node before the paused update goes on', async () => {
    const next = `${registry}/big2:v1`;
    const warm = daemonSet('warm', {
      updateStrategy: { rollingUpdate: { rollingUpdateType: 'InPlaceIfPossible', paused: true } },
    });
    // the three nodes pull at once
    Object.assign(warm.metadata, { annotations: { 'apps.kruise.io/image-predownload-parallelism': '3' } });
    await create(warm);
    await settled('warm', allOn(3));
    for (const n of cluster.nodes) expect((await n.cri.imageStatus(next)).image, n.name).toBeNull();
    // the jobs pull on nodes that have a NodeImage (the manager makes one per Ready node)
    await eventually(
      async () => (await client.list(KruiseResources.NodeImage)).items.length >= 3,
      60_000,
      200,
    );
    await client.mergePatch(KruiseResources.DaemonSet, 'default', 'warm', {
      spec: { template: { spec: { containers: [{ name: 'app', image: next, command: LOOP }] } } },
    });
    // paused: no pod changes, yet every node gets the image through its kruise-daemon
    await eventually(
      async () => {
        for (const n of cluster.nodes) if (!(await n.cri.imageStatus(next)).image) return false;
        return true;
      },
      90_000,
      200,
    );
    expect((await pods('warm')).every((p) => imageOf(p) === image('v1'))).toBe(true);
    const jobs = (await client.list(KruiseResources.ImagePullJob, { namespace: 'default' })).items;
    const own = jobs.filter((j) => j.metadata?.ownerReferences?.[0]?.name === 'warm');
    expect(own.map((j) => [j.spec?.image, j.spec?.parallelism])).toEqual([[next, 3]]);
    await client.mergePatch(KruiseResources.DaemonSet, 'default', 'warm', {
      spec: { updateStrategy: { rollingUpdate: { paused: false } } },
    });
    await settled('warm', (ds, ps) => allOn(3)(ds, ps) && ps.every((p) => imageOf(p) === next));
  }, 180_000);

  it('stops at the partition, holds while paused, goes on when resumed', async () => {
    await create(
      daemonSet('staged', {
        updateStrategy: { rollingUpdate: { rollingUpdateType: 'InPlaceIfPossible', partition: 2 } },
      }),
    );
    await settled('staged', allOn(3));
    await setImage('staged', 'v2');
    // nodes update from the last name: ads-3 only
    const { pods: first } = await settled(
      'staged',
      (ds, ps) => ds.status?.updatedNumberScheduled === 1 && ps.every(ready),
    );
    expect(first.filter((p) => imageOf(p) === image('v2')).map(nodeOf)).toEqual(['ads-3']);
    await client.mergePatch(KruiseResources.DaemonSet, 'default', 'staged', {
      spec: { updateStrategy: { rollingUpdate: { partition: 0, paused: true } } },
    });
    await settled('staged', () => true);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await get('staged')).status?.updatedNumberScheduled).toBe(1);
    await client.mergePatch(KruiseResources.DaemonSet, 'default', 'staged', {
      spec: { updateStrategy: { rollingUpdate: { paused: false } } },
    });
    await settled('staged', (ds, ps) => allOn(3)(ds, ps) && ps.every((p) => imageOf(p) === image('v2')));
  }, 120_000);

  it('holds a pod the preDelete hook marks until the hook lets it go, then replaces it', async () => {
    await create(
      daemonSet(
        'held',
        { lifecycle: { preDelete: { labelsHandler: { hold: 'true' } } } },
        { readinessGates: [] },
      ),
    );
    await client.mergePatch(KruiseResources.DaemonSet, 'default', 'held', {
      spec: { template: { metadata: { labels: { app: 'held', hold: 'true' } } } },
    });
    await settled('held', allOn(3));
    await setImage('held', 'v2');
    const isHeld = (p: Pod) => p.metadata?.labels?.['lifecycle.apps.kruise.io/state'] === 'PreparingDelete';
    const held = await eventually(async () => (await pods('held')).find(isHeld), 60_000, 200);
    await new Promise((r) => setTimeout(r, 1000));
    const still = (await pods('held', true)).find((p) => p.metadata?.uid === held.metadata?.uid);
    expect(still?.metadata?.deletionTimestamp).toBeUndefined();
    await client.mergePatch(Resources.Pod, 'default', held.metadata!.name!, {
      metadata: { labels: { hold: null } },
    });
    await eventually(
      async () => {
        const ps = await pods('held');
        const there = ps.find((p) => nodeOf(p) === nodeOf(held));
        return (
          there &&
          there.metadata?.uid !== held.metadata?.uid &&
          imageOf(there) === image('v2') &&
          ready(there)
        );
      },
      60_000,
      200,
    );
    await client.delete(KruiseResources.DaemonSet, 'default', 'held');
  }, 120_000);

  it('refuses a bad object in upstream’s words and stores nothing', async () => {
    const err = await create(
      daemonSet('bad', { updateStrategy: { rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } } }),
    ).catch((e) => e);
    expect(err.code).toBe(500);
    expect(err.message).toBe(
      'admission webhook "vdaemonset.kb.io" denied the request: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero',
    );
    expect(await get('bad').catch((e) => e.code)).toBe(404);
  });

  it('keeps a tainted node without a pod, runs on a cordoned one, evicts on NoExecute, and serves a node that joins', async () => {
    await client.mergePatch(Resources.Node, undefined, 'ads-3', {
      spec: { taints: [{ key: 'maintenance', effect: 'NoExecute' }] },
    });
    await settled(
      'agent',
      (ds, ps) =>
        ps.length === 2 && !ps.some((p) => nodeOf(p) === 'ads-3') && ds.status?.desiredNumberScheduled === 2,
    );
    await client.mergePatch(Resources.Node, undefined, 'ads-3', {
      spec: { taints: null, unschedulable: true },
    });
    await settled('agent', (ds, ps) => allOn(3)(ds, ps) && ps.some((p) => nodeOf(p) === 'ads-3'));
    late = await startTestNodes(client, {
      count: 1,
      base: 'ads-late',
      criStackDir: `${criStackDir}-late`,
      registry,
    });
    const { pods: ps } = await settled('agent', allOn(4));
    expect(ps.map(nodeOf).sort()).toEqual(['ads', 'ads-2', 'ads-3', 'ads-late']);
    expect(ps.find((p) => nodeOf(p) === 'ads-late')?.spec?.containers[0]?.image).toBe(image('v2'));
  }, 180_000);
});
