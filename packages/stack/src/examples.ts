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

/** The CloneSet example: applied with the others, updated in place once its pods run. */
class CloneSetExample {
  private uids: string[] | undefined;

  /** Where it stands (one line for the CloneSet, one per pod); changes the image once all 3 pods are available. */
  async progress(client: KubeClient, registry: string, print: (line: string) => void) {
    const cs = await get(client, KruiseResources.CloneSet, 'default', 'demo-cloneset');
    const s = cs?.status ?? {};
    const pods = (
      await client.list(Resources.Pod, { namespace: 'default', labelSelector: 'app=demo-cloneset' })
    ).items
      .filter((p) => !p.metadata?.deletionTimestamp)
      .sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
    if (!this.uids && s.availableReplicas === 3 && pods.length === 3) {
      this.uids = pods.map((p) => p.metadata!.uid);
      // only the image changes (the rest of the container stays): an in-place update
      await retryOnConflict(async () => {
        const fresh = await client.get(KruiseResources.CloneSet, 'default', 'demo-cloneset');
        fresh.spec.template.spec.containers[0].image = `${registry}/busybox:v2`;
        await client.update(KruiseResources.CloneSet, fresh);
      });
      print('examples: CloneSet demo-cloneset image -> busybox:v2 (updated in place)');
    }
    const lines = [
      `CloneSet demo-cloneset: ${s.availableReplicas ?? 0}/3 available, ${s.updatedReplicas ?? 0} updated, revision ${s.updateRevision ?? '-'}`,
      ...pods.map((p) => {
        const c = p.status?.containerStatuses?.[0];
        return `  pod ${p.metadata!.name} uid=${p.metadata!.uid} ip=${p.status?.podIP ?? '-'} ${c?.image ?? p.spec.containers[0].image} restarts=${c?.restartCount ?? 0}${c?.ready ? ' ready' : ''}`;
      }),
    ];
    const done =
      this.uids !== undefined &&
      s.updatedReplicas === 3 &&
      s.availableReplicas === 3 &&
      pods.every(
        (p, i) => p.metadata!.uid === this.uids![i] && p.status?.containerStatuses?.[0]?.restartCount === 1,
      );
    return { lines, done };
  }
}

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
): Promise<boolean> {
  // The jobs pull on nodes that have a NodeImage: wait for the local node's (created by the manager).
  for (let i = 0; i < 600 && !signal.aborted; i++) {
    if (await get(client, KruiseResources.NodeImage, undefined, node)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const file of ['imagepulljob.yaml', 'imagelistpulljob.yaml', 'pod.yaml', 'cloneset.yaml'])
    await applyManifests(client, exampleObjects(file, registry, node));
  print('examples applied: examples/imagepulljob.yaml, imagelistpulljob.yaml, pod.yaml, cloneset.yaml');
  const cloneSet = new CloneSetExample();
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
    const cs = await cloneSet.progress(client, registry, print);
    const lines = [...examples.lines, ...cs.lines];
    const done = examples.done && cs.done;
    for (const line of lines) if (!last.has(line)) print(line);
    last = new Set(lines);
    if (done) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}
