import { KruiseResources } from '@kruise/api';
import { KubeClient, Resources, retryOnConflict } from '@kruise/runtime';
import type { ManagerApp } from '../../packages/manager/src/index.ts';
import { eventually } from '../support/poll.ts';
import { MANAGER_FLAGS, prepareBoundCluster, startManagerWithWebhooks } from './bound-cluster.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { startCriSystem } from './cri-system.ts';
import { figure, print } from './figures.ts';
import { inPlaceVsReCreate } from './inplace-vs-recreate.ts';
import { managerRssWithPods } from './manager-rss.ts';
import { REPLICAS, scaleOfRaw } from './scale-of-raw.ts';
import { BENCH_POD_SPEC, cloneSetWorkload } from './workloads.ts';

const ROUNDS = 3;

const until = (check: () => boolean | Promise<boolean>, timeoutMs: number) =>
  eventually(check, timeoutMs, 20);

/** A CloneSet as a user writes it (the mutating webhook defaults the rest). */
const cloneSet = (name: string, replicas: number) =>
  cloneSetWorkload.manifest(name, replicas, BENCH_POD_SPEC);

const podCount = async (client: KubeClient, labelSelector: string) =>
  (await client.listAll(Resources.Pod, { namespace: 'default', labelSelector })).items.filter(
    (p) => !p.metadata?.deletionTimestamp,
  ).length;

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
  for (const n of names) await client.create(KruiseResources.CloneSet, cloneSet(n, 10));
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
  // one process per round: a process's reading varies with its start (seen 211-253 MB)
  const rss = await managerRssWithPods(kubeconfigPath, client, app, cloneSetWorkload, {
    sets: Array.from({ length: 10 }, (_, i) => `big-${i}`),
    replicas: REPLICAS,
    rounds: RSS_ROUNDS,
    flags: MANAGER_FLAGS,
  });
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
    await prepareBoundCluster(client);
    const tuning = {
      onReconcile: (controller: string, key: string) => {
        if (controller === 'cloneset') reconciles.set(key, (reconciles.get(key) ?? 0) + 1);
      },
    };
    app = await startManagerWithWebhooks(client, MANAGER_FLAGS, tuning);
    await scaleOfRaw(client, cloneSetWorkload);
    await reconcilesPerChange(client, reconciles, 'off');
    await app.stop();
    app = undefined;
    app = await startManagerWithWebhooks(
      client,
      [...MANAGER_FLAGS, '--feature-gates=CloneSetEventHandlerOptimization=true'],
      tuning,
    );
    await reconcilesPerChange(client, reconciles, 'on');
    await managerRss(cp.kubeconfigPath, client, app);
    app = undefined;
  } finally {
    await app?.stop();
    await cp.stop();
  }
  const sys = await startCriSystem('bench-node');
  try {
    await inPlaceVsReCreate(sys, cloneSetWorkload);
  } finally {
    await sys.stop();
  }
}
