import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KruiseResources } from '@kruise/api';
import { KubeClient, type KubeObject, Resources, retryOnConflict, silentLogger } from '@kruise/runtime';
import { parse } from 'yaml';
import { type ManagerApp, parseOptions, startManager } from '../../packages/manager/src/index.ts';
import { eventually } from '../support/poll.ts';
import { inPlaceVsReCreate } from './cloneset-inplace.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { figure, print, sideBySide } from './figures.ts';
import { managerProcessRss } from './manager-rss.ts';
import { pool } from './pool.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const NODES = 10;
const REPLICAS = 1000;
const ROUNDS = 3;

const until = (check: () => boolean | Promise<boolean>, timeoutMs: number) =>
  eventually(check, timeoutMs, 20);

/** The Kruise CRDs and `nodes` Ready Nodes with room for many pods (no local node: pods are bound, not run). */
async function prepare(client: KubeClient): Promise<void> {
  for (const file of readdirSync(join(root, 'deploy/crds')))
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: parse(readFileSync(join(root, 'deploy/crds', file), 'utf8')),
    });
  for (const ns of ['kruise-system', 'kruise-daemon-config'])
    await client.create(Resources.Namespace, { metadata: { name: ns } });
  const room = { cpu: '1000', memory: '4000Gi', pods: '5000' };
  for (let i = 0; i < NODES; i++)
    await client.create(Resources.Node, {
      metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}` } },
      status: {
        capacity: room,
        allocatable: room,
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      },
    });
}

const managerFlags = [
  '--metrics-addr=0',
  '--health-probe-addr=0',
  '--webhook-host=127.0.0.1',
  '--webhook-port=0',
  '--enable-leader-election=false',
];

/** A CloneSet with everything the mutating webhook would default written out (the bench runs no webhooks). */
const cloneSet = (name: string, replicas: number) => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas,
    revisionHistoryLimit: 10,
    selector: { matchLabels: { app: name } },
    updateStrategy: { type: 'ReCreate', partition: 0, maxUnavailable: '20%', maxSurge: 0 },
    scaleStrategy: {},
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'app', image: 'busybox:v1' }] },
    },
  },
});

const podCount = async (client: KubeClient, labelSelector: string) =>
  (await client.listAll(Resources.Pod, { namespace: 'default', labelSelector })).items.filter(
    (p) => !p.metadata?.deletionTimestamp,
  ).length;

/** Deletes every pod matching the selector and waits until they are gone. */
async function deletePods(client: KubeClient, labelSelector: string): Promise<void> {
  const pods = (await client.listAll(Resources.Pod, { namespace: 'default', labelSelector })).items;
  await pool(pods, 32, (p) =>
    client
      .delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 0 })
      .catch(() => undefined),
  );
  await until(async () => (await podCount(client, labelSelector)) === 0, 120_000);
}

/**
 * (1) Scale 0 → 1,000 side by side with the control plane's raw pod create rate (the same 1,000
 * pods created by a plain client, 32 in flight): seconds until every pod exists.
 */
async function scaleUp(client: KubeClient): Promise<void> {
  await client.create(KruiseResources.CloneSet, cloneSet('scale', 0) as KubeObject);
  const seconds = await sideBySide(ROUNDS, {
    raw: async (round) => {
      const t = performance.now();
      await pool(
        Array.from({ length: REPLICAS }, (_, i) => i),
        32,
        (i) =>
          client.create(Resources.Pod, {
            metadata: { name: `raw-${round}-${i}`, namespace: 'default', labels: { app: 'raw' } },
            spec: { containers: [{ name: 'app', image: 'busybox:v1' }] },
          }),
      );
      const s = (performance.now() - t) / 1000;
      await deletePods(client, 'app=raw');
      return s;
    },
    cloneset: async () => {
      const t = performance.now();
      await client.mergePatch(KruiseResources.CloneSet, 'default', 'scale', { spec: { replicas: REPLICAS } });
      await until(async () => (await podCount(client, 'app=scale')) === REPLICAS, 300_000);
      const s = (performance.now() - t) / 1000;
      await client.mergePatch(KruiseResources.CloneSet, 'default', 'scale', { spec: { replicas: 0 } });
      await until(async () => (await podCount(client, 'app=scale')) === 0, 300_000);
      return s;
    },
  });
  figure('cloneset.scale-1000', seconds.cloneset, {
    label: `CloneSet scale 0 -> ${REPLICAS} on ${NODES} Nodes (every pod created)`,
    unit: 's',
    digits: 2,
  });
  figure('cloneset.raw-creates-1000', seconds.raw, {
    label: `raw create of ${REPLICAS} pods, 32 in flight`,
    unit: 's',
    digits: 2,
  });
  figure(
    'cloneset.scale-1000-of-raw',
    seconds.cloneset.map((c, i) => (seconds.raw[i]! / c) * 100),
    { digits: 0 },
  );
}

/** Flips one pod's Ready condition as kubelet does (every other condition stays). */
async function flipReady(client: KubeClient, name: string): Promise<void> {
  await retryOnConflict(async () => {
    const pod = await client.get(Resources.Pod, 'default', name);
    const conditions: { type: string; status: string }[] = pod.status?.conditions ?? [];
    const wasReady = conditions.some((c) => c.type === 'Ready' && c.status === 'True');
    const ready = {
      type: 'Ready',
      status: wasReady ? 'False' : 'True',
      lastTransitionTime: new Date().toISOString(),
    };
    pod.status = {
      ...pod.status,
      phase: 'Running',
      conditions: [...conditions.filter((c) => c.type !== 'Ready'), ready],
    };
    await client.updateStatus(Resources.Pod, pod);
  });
}

/** An annotation-only change of one pod (what kruise-daemon's runtime-containers-meta report is to a CloneSet). */
const annotate = (client: KubeClient, name: string) =>
  client.mergePatch(Resources.Pod, 'default', name, {
    metadata: { annotations: { 'bench.kruise.io/seen': String(Date.now()) } },
  });

/**
 * (4) Ten CloneSets of 10 pods; per round one pod's status changes (its Ready condition): the
 * reconciles of its CloneSet and of the nine others until everything is quiet; then, for
 * information, the reconciles of the owner after an annotation-only change of a pod. `gate` names
 * the run (the manager's CloneSetEventHandlerOptimization) and suffixes the figure ids.
 */
async function reconcilesPerChange(
  client: KubeClient,
  reconciles: Map<string, number>,
  gate: 'off' | 'on',
): Promise<void> {
  const names = Array.from({ length: 10 }, (_, i) => `quiet-${gate}-${i}`);
  for (const n of names) await client.create(KruiseResources.CloneSet, cloneSet(n, 10) as KubeObject);
  for (const n of names) await until(async () => (await podCount(client, `app=${n}`)) === 10, 60_000);
  const total = () => [...reconciles.values()].reduce((a, b) => a + b, 0);
  const settle = async () => {
    let last = -1;
    while (last !== total()) {
      last = total();
      await new Promise((r) => setTimeout(r, 1500));
    }
  };
  const firstPod = async (cs: string) =>
    (await client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${cs}` })).items[0]!
      .metadata!.name!;
  /** Reconciles of the owner and of the nine others after `change` to the owner's first pod. */
  const measure = async (owner: string, change: (pod: string) => Promise<unknown>) => {
    await settle();
    const before = new Map(reconciles);
    await change(await firstPod(owner));
    await settle();
    const delta = (n: string) => (reconciles.get(`default/${n}`) ?? 0) - (before.get(`default/${n}`) ?? 0);
    return {
      owner: delta(owner),
      others: names.filter((n) => n !== owner).reduce((a, n) => a + delta(n), 0),
    };
  };
  const owner: number[] = [];
  const others: number[] = [];
  const annotated: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // kubelet's way: the pod's Ready condition flips, every other condition stays
    const flip = await measure(names[round]!, (pod) => flipReady(client, pod));
    owner.push(flip.owner);
    others.push(flip.others);
    annotated.push((await measure(names[ROUNDS + round]!, (pod) => annotate(client, pod))).owner);
  }
  const suffix = gate === 'on' ? '-gated' : '';
  print(
    `  reconciles: 10 CloneSets x 10 pods; per round one pod status change (CloneSetEventHandlerOptimization ${gate})`,
  );
  figure(`cloneset.reconciles-owner${suffix}`, owner, { digits: 0 });
  figure(`cloneset.reconciles-others${suffix}`, others, { digits: 0 });
  figure(`cloneset.reconciles-annotation${suffix}`, annotated, {
    label: `reconciles of the owning CloneSet per annotation-only pod change (gate ${gate})`,
    unit: 'x',
    digits: 0,
  });
  for (const n of names) await client.delete(KruiseResources.CloneSet, 'default', n);
}

/** kruise-manager processes measured for (3), one after another. */
const RSS_ROUNDS = 3;

/** (3) kruise-manager's RSS (built JS, its own process) with 10 CloneSets x 1,000 pods cached. */
async function managerRss(kubeconfigPath: string, client: KubeClient, app: ManagerApp): Promise<void> {
  const names = Array.from({ length: 10 }, (_, i) => `big-${i}`);
  for (const n of names) await client.create(KruiseResources.CloneSet, cloneSet(n, REPLICAS) as KubeObject);
  for (const n of names) await until(async () => (await podCount(client, `app=${n}`)) === REPLICAS, 600_000);
  await app.stop();
  // the start-up reconciles (pods seen at start queue their CloneSet with a 3 s → 30 s backoff);
  // one process per round: a process's reading varies with its start (seen 211-253 MB)
  const rss: number[] = [];
  for (let round = 0; round < RSS_ROUNDS; round++)
    rss.push(await managerProcessRss(kubeconfigPath, managerFlags, 35_000));
  figure('cloneset.manager-rss', rss, { digits: 0 });
}

/**
 * CloneSet: scale-up rate vs raw pod creates, reconciles per pod change, manager memory with 10,000
 * pods (no node runs pods), then in-place update vs ReCreate of 50 pods on a real node.
 */
export async function benchCloneSet(): Promise<void> {
  const cp = await startControlPlaneProcess();
  const client = KubeClient.load(cp.kubeconfigPath);
  const reconciles = new Map<string, number>();
  let app: ManagerApp | undefined;
  try {
    await prepare(client);
    const tuning = {
      onReconcile: (controller: string, key: string) => {
        if (controller === 'cloneset') reconciles.set(key, (reconciles.get(key) ?? 0) + 1);
      },
    };
    app = await startManager(client, parseOptions(managerFlags), silentLogger, tuning);
    await scaleUp(client);
    await reconcilesPerChange(client, reconciles, 'off');
    await app.stop();
    app = undefined;
    app = await startManager(
      client,
      parseOptions([...managerFlags, '--feature-gates=CloneSetEventHandlerOptimization=true']),
      silentLogger,
      tuning,
    );
    await reconcilesPerChange(client, reconciles, 'on');
    await managerRss(cp.kubeconfigPath, client, app);
    app = undefined;
  } finally {
    await app?.stop();
    await cp.stop();
  }
  await inPlaceVsReCreate();
}
