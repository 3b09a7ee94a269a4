import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KruiseResources } from '@kruise/api';
import { type KubeClient, type KubeObject, Resources, retryOnConflict } from '@kruise/runtime';
import { parseAllDocuments } from 'yaml';
import { applyManifests } from './cluster-bootstrap.ts';
import { repoRoot } from './repo-root.ts';

/** The objects of one file under examples/, with the sample registry and node names replaced. */
export function exampleObjects(file: string, registry: string, node: string): any[] {
  const text = readFileSync(join(repoRoot, 'examples', file), 'utf8')
    .replaceAll('127.0.0.1:5000', registry)
    .replaceAll('nodeName: kruise-local', `nodeName: ${node}`);
  return parseAllDocuments(text).map((d) => d.toJS());
}

const get = (client: KubeClient, r: typeof Resources.Pod, ns: string | undefined, name: string) =>
  client.get(r, ns, name).catch(() => undefined) as Promise<KubeObject | undefined>;

/** One line per example object saying where it stands, and whether it is done. */
async function progressLines(client: KubeClient, node: string): Promise<{ lines: string[]; done: boolean }> {
  const lines: string[] = [];
  let done = true;
  const job = await get(client, KruiseResources.ImagePullJob, 'default', 'big-image');
  const ni = await get(client, KruiseResources.NodeImage, undefined, node);
  const pulling = Object.entries(ni?.status?.imageStatuses ?? {}).flatMap(([image, s]: [string, any]) =>
    (s.tags ?? []).map(
      (t: any) => `${image}:${t.tag} ${t.phase}${t.progress !== undefined ? ` ${t.progress}%` : ''}`,
    ),
  );
  const s = job?.status ?? {};
  lines.push(
    `ImagePullJob big-image: ${s.succeeded ?? 0}/${s.desired ?? 0} nodes succeeded, ${s.active ?? 0} active, ${s.failed ?? 0} failed${s.completionTime ? ' (complete)' : ''}`,
  );
  if (pulling.length) lines.push(`  NodeImage ${node}: ${pulling.join(', ')}`);
  done &&= !!s.completionTime;
  const list = await get(client, KruiseResources.ImageListPullJob, 'default', 'busybox-versions');
  const l = list?.status ?? {};
  lines.push(
    `ImageListPullJob busybox-versions: ${l.succeeded ?? 0}/${l.desired ?? 0} images succeeded${l.completionTime ? ' (complete)' : ''}`,
  );
  done &&= !!l.completionTime;
  const pod = await get(client, Resources.Pod, 'default', 'demo');
  const restarts = (pod?.status?.containerStatuses ?? []).map(
    (c: any) => `${c.name} restarts=${c.restartCount}`,
  );
  lines.push(
    `Pod demo: ${pod?.status?.phase ?? 'Pending'}${restarts.length ? `, ${restarts.join(', ')}` : ''}`,
  );
  const crr = await get(client, KruiseResources.ContainerRecreateRequest, 'default', 'demo-restart');
  const states = (crr?.status?.containerRecreateStates ?? []).map((c: any) => `${c.name} ${c.phase}`);
  lines.push(
    `ContainerRecreateRequest demo-restart: ${crr ? crr.status?.phase || 'new' : 'waiting for the pod'}${states.length ? ` (${states.join(', ')})` : ''}`,
  );
  done &&= crr?.status?.phase === 'Completed';
  return { lines, done };
}

/** A workload's available and updated pods, as its status counts them. */
interface PodCounts {
  available: number;
  updated: number;
}

/** What differs between the workload examples that are updated in place (CloneSet, Advanced StatefulSet and DaemonSet). */
interface InPlaceWorkload {
  /** The kind as printed. */
  kind: string;
  resource: typeof KruiseResources.CloneSet;
  name: string;
  /** Words printed before a pod's UID (an Advanced StatefulSet pod's ordinal, a daemon pod's node). */
  podWords?: (pod: KubeObject) => string;
  /** How many pods it runs: 3, or one per local node for a DaemonSet. */
  pods?: (nodes: number) => number;
  /** Its status as counts (replica workloads' availableReplicas and updatedReplicas unless given). */
  counts?: (status: Record<string, any>) => PodCounts;
}

const replicaCounts = (s: Record<string, any>): PodCounts => ({
  available: s.availableReplicas ?? 0,
  updated: s.updatedReplicas ?? 0,
});

/** A pod's identity as the in-place update must keep it. */
const identity = (p: KubeObject) => `uid=${p.metadata!.uid} ip=${p.status?.podIP ?? '-'}`;

/**
 * A workload example in `default` selecting `app: <name>`: applied with the others, its image
 * changed to busybox:v2 once all its pods are available, and done once the same pods (same names,
 * UIDs and IPs) run the new image after one container restart each.
 */
class InPlaceUpdateExample {
  private readonly w: InPlaceWorkload;
  /** How many pods it runs. */
  private readonly n: number;
  /** Each pod's identity when the image was changed, by pod name. */
  private before: Map<string, string> | undefined;
  private reported = false;

  constructor(workload: InPlaceWorkload, nodes: number) {
    this.w = workload;
    this.n = workload.pods?.(nodes) ?? 3;
  }

  /** Where it stands (one line for the workload, one per pod); changes the image once all its pods are available. */
  async progress(client: KubeClient, registry: string, print: (line: string) => void) {
    const { kind, resource, name } = this.w;
    const n = this.n;
    const status = (await get(client, resource, 'default', name))?.status ?? {};
    const s = (this.w.counts ?? replicaCounts)(status);
    const pods = (
      await client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${name}` })
    ).items
      .filter((p) => !p.metadata?.deletionTimestamp)
      .sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
    if (!this.before && s.available === n && pods.length === n) {
      this.before = new Map(pods.map((p) => [p.metadata!.name!, identity(p)]));
      // only the image changes (the rest of the container stays): an in-place update
      await retryOnConflict(async () => {
        const fresh = await client.get(resource, 'default', name);
        fresh.spec.template.spec.containers[0].image = `${registry}/busybox:v2`;
        await client.update(resource, fresh);
      });
      print(`examples: ${kind} ${name} image -> busybox:v2 (updated in place)`);
    }
    const lines = [
      `${kind} ${name}: ${s.available}/${n} available, ${s.updated} updated, revision ${status.updateRevision ?? '-'}`,
      ...pods.map((p) => {
        const c = p.status?.containerStatuses?.[0];
        const words = this.w.podWords ? `${this.w.podWords(p)} ` : '';
        return `  pod ${p.metadata!.name} ${words}${identity(p)} ${c?.image ?? p.spec.containers[0].image} restarts=${c?.restartCount ?? 0}${c?.ready ? ' ready' : ''}`;
      }),
    ];
    const done =
      this.before !== undefined &&
      s.updated === n &&
      s.available === n &&
      pods.length === n &&
      pods.every(
        (p) =>
          this.before!.get(p.metadata!.name!) === identity(p) &&
          p.status?.containerStatuses?.[0]?.restartCount === 1,
      );
    if (done && !this.reported) {
      this.reported = true;
      print(`examples: ${kind} ${name} updated in place: every pod kept its name, UID and IP`);
    }
    return { lines, done };
  }
}

/** The workloads examples/ updates in place. */
const IN_PLACE_EXAMPLES: InPlaceWorkload[] = [
  { kind: 'CloneSet', resource: KruiseResources.CloneSet, name: 'demo-cloneset' },
  {
    kind: 'Advanced StatefulSet',
    resource: KruiseResources.StatefulSet,
    name: 'demo-asts',
    podWords: (p) => `ordinal=${/-(\d+)$/.exec(p.metadata!.name!)?.[1]}`,
  },
  {
    kind: 'Advanced DaemonSet',
    resource: KruiseResources.DaemonSet,
    name: 'demo-ads',
    podWords: (p) => `node=${p.spec?.nodeName ?? '-'}`,
    pods: (nodes) => nodes,
    counts: (s) => ({ available: s.numberAvailable ?? 0, updated: s.updatedNumberScheduled ?? 0 }),
  },
];

/**
 * Applies examples/ (the CRR once its pod runs) and prints their progress as it changes, until
 * every example is complete or `signal` aborts.
 */
export async function runExamples(
  client: KubeClient,
  registry: string,
  node: string,
  print: (line: string) => void,
  signal: AbortSignal,
  nodes = 1,
): Promise<boolean> {
  // The jobs pull on nodes that have a NodeImage: wait for the local node's (created by the manager).
  for (let i = 0; i < 600 && !signal.aborted; i++) {
    if (await get(client, KruiseResources.NodeImage, undefined, node)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const files = [
    'imagepulljob.yaml',
    'imagelistpulljob.yaml',
    'pod.yaml',
    'cloneset.yaml',
    'advanced-statefulset.yaml',
    'advanced-daemonset.yaml',
  ];
  for (const file of files) await applyManifests(client, exampleObjects(file, registry, node));
  print(`examples applied: examples/${files.join(', ')}`);
  const workloads = IN_PLACE_EXAMPLES.map((w) => new InPlaceUpdateExample(w, nodes));
  let crrApplied = false;
  let last = new Set<string>();
  while (!signal.aborted) {
    if (!crrApplied) {
      const pod = await get(client, Resources.Pod, 'default', 'demo');
      if (
        (pod?.status?.containerStatuses ?? []).length === 2 &&
        pod!.status.containerStatuses.every((c: any) => c.ready)
      ) {
        await applyManifests(client, exampleObjects('containerrecreaterequest.yaml', registry, node));
        print('examples applied: examples/containerrecreaterequest.yaml');
        crrApplied = true;
      }
    }
    const examples = await progressLines(client, node);
    const updates = [];
    for (const w of workloads) updates.push(await w.progress(client, registry, print));
    const lines = [...examples.lines, ...updates.flatMap((u) => u.lines)];
    const done = examples.done && updates.every((u) => u.done);
    for (const line of lines) if (!last.has(line)) print(line);
    last = new Set(lines);
    if (done) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}
