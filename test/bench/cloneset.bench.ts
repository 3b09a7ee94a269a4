import { KruiseResources } from '@kruise/api';
import {
  Informer,
  KubeClient,
  type KubeObject,
  Resources,
  retryOnConflict,
  silentLogger,
} from '@kruise/runtime';
import { installKruiseApi, pointWebhookService } from '@kruise/stack/cluster-bootstrap';
import { type ManagerApp, parseOptions, startManager } from '../../packages/manager/src/index.ts';
import { eventually } from '../support/poll.ts';
import { inPlaceVsReCreate } from './cloneset-inplace.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { figure, print, sideBySide } from './figures.ts';
import { managerProcessRss } from './manager-rss.ts';
import { pool } from './pool.ts';
import { formatWaits, untilQuiet } from './quiet.ts';

const NODES = 10;
const REPLICAS = 1000;
const ROUNDS = 3;
/** Counted rounds of the scale-up side by side (after a warm-up): its spread needs more than three. */
const SCALE_ROUNDS = 5;

const until = (check: () => boolean | Promise<boolean>, timeoutMs: number) =>
  eventually(check, timeoutMs, 20);

/**
 * What a cluster install puts in place (the CRDs, namespaces, both webhook configurations and the
 * webhook Service) and `NODES` Ready Nodes with room for many pods (no local node: pods are bound,
 * not run).
 */
async function prepare(client: KubeClient): Promise<void> {
  await installKruiseApi(client);
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

/** Starts kruise-manager in this process with its webhooks serving the control plane (as a user has them). */
async function startManagerWithWebhooks(
  client: KubeClient,
  flags: string[],
  tuning: Parameters<typeof startManager>[3],
): Promise<ManagerApp> {
  const app = await startManager(client, parseOptions(flags), silentLogger, tuning);
  await pointWebhookService(client, app.webhookPort);
  return app;
}

/** A CloneSet as a user writes it (the mutating webhook defaults the rest). */
const cloneSet = (name: string, replicas: number) => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    updateStrategy: { type: 'ReCreate' },
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

/**
 * Pods of one label, followed by a watch (no polling of the server being measured): `reach(n)`
 * resolves once `n` pods exist that are not being deleted, `gone()` once none is left at all.
 */
function podWatch(client: KubeClient, labelSelector: string) {
  const informer = new Informer(client, { resource: Resources.Pod, namespace: 'default', labelSelector });
  const live = () => informer.list().filter((p) => !p.metadata?.deletionTimestamp).length;
  let waiter: (() => void) | undefined;
  const wake = () => waiter?.();
  informer.addEventHandler({ add: wake, update: wake, delete: wake });
  const until = (done: () => boolean, what: string, timeoutMs = 300_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${labelSelector}: ${what} not reached in ${timeoutMs} ms`)),
        timeoutMs,
      );
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        waiter = undefined;
        resolve();
      };
      waiter = check;
      check();
    });
  return {
    start: async () => {
      informer.start();
      await informer.waitForSync();
    },
    reach: (n: number) => until(() => live() === n, `${n} pods`),
    gone: () => until(() => informer.list().length === 0, 'no pods'),
    stop: () => informer.stop(),
  };
}

/**
 * Deletes every pod matching the selector at once (grace 0: no kubelet runs them to confirm a
 * graceful deletion) and waits until the watch shows none.
 */
async function deletePods(client: KubeClient, labelSelector: string, watch: ReturnType<typeof podWatch>) {
  const pods = (await client.listAll(Resources.Pod, { namespace: 'default', labelSelector })).items;
  await pool(pods, 32, (p) =>
    client
      .delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 0 })
      .catch(() => undefined),
  );
  await watch.gone();
}

/**
 * (1) Scale 0 → 1,000 side by side with the control plane's raw pod create rate (the same 1,000
 * pods created by a plain client, 32 in flight), both through the webhooks a user has (the pod
 * webhook admits every pod create): seconds until a watch shows every pod created. Each round
 * starts on a quiet machine with no pod left from the one before; a warm-up round is not counted.
 */
async function scaleUp(client: KubeClient): Promise<void> {
  await client.create(KruiseResources.CloneSet, cloneSet('scale', 0) as KubeObject);
  const raw = podWatch(client, 'app=raw');
  const scaled = podWatch(client, 'app=scale');
  await raw.start();
  await scaled.start();
  const waited: number[] = [];
  try {
    const seconds = await sideBySide(
      SCALE_ROUNDS,
      {
        raw: async (round) => {
          const t = performance.now();
          await pool(
            Array.from({ length: REPLICAS }, (_, i) => i),
            32,
            (i) =>
              client.create(Resources.Pod, {
                metadata: { name: `raw-${round + 1}-${i}`, namespace: 'default', labels: { app: 'raw' } },
                spec: { containers: [{ name: 'app', image: 'busybox:v1' }] },
              }),
          );
          await raw.reach(REPLICAS);
          const s = (performance.now() - t) / 1000;
          await deletePods(client, 'app=raw', raw);
          return s;
        },
        cloneset: async () => {
          const t = performance.now();
          await client.mergePatch(KruiseResources.CloneSet, 'default', 'scale', {
            spec: { replicas: REPLICAS },
          });
          await scaled.reach(REPLICAS);
          const s = (performance.now() - t) / 1000;
          await client.mergePatch(KruiseResources.CloneSet, 'default', 'scale', { spec: { replicas: 0 } });
          await scaled.reach(0);
          // The CloneSet deleted them gracefully; with no kubelet, nothing confirms: remove them.
          await deletePods(client, 'app=scale', scaled);
          return s;
        },
      },
      { warmup: 1, before: async () => waited.push(await untilQuiet()) },
    );
    print(
      `  each side started once the machine was quiet (busy < 20 % for 1 s), after ${formatWaits(waited)} s`,
    );
    figure('cloneset.scale-1000', seconds.cloneset, {
      label: `CloneSet scale 0 -> ${REPLICAS} on ${NODES} Nodes (every pod created, webhooks on)`,
      unit: 's',
      digits: 2,
    });
    figure('cloneset.raw-creates-1000', seconds.raw, {
      label: `raw create of ${REPLICAS} pods, 32 in flight (webhooks on)`,
      unit: 's',
      digits: 2,
    });
    figure(
      'cloneset.scale-1000-of-raw',
      seconds.cloneset.map((c, i) => (seconds.raw[i]! / c) * 100),
      { digits: 0 },
    );
  } finally {
    await raw.stop();
    await scaled.stop();
  }
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
    app = await startManagerWithWebhooks(client, managerFlags, tuning);
    await scaleUp(client);
    await reconcilesPerChange(client, reconciles, 'off');
    await app.stop();
    app = undefined;
    app = await startManagerWithWebhooks(
      client,
      [...managerFlags, '--feature-gates=CloneSetEventHandlerOptimization=true'],
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
