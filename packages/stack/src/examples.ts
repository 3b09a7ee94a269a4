import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { parseAllDocuments } from 'yaml';
import { applyManifests, repoRoot } from './processes.ts';

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
  const job = await get(client, Resources.ImagePullJob, 'default', 'big-image');
  const ni = await get(client, Resources.NodeImage, undefined, node);
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
  const list = await get(client, Resources.ImageListPullJob, 'default', 'busybox-versions');
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
  const crr = await get(client, Resources.ContainerRecreateRequest, 'default', 'demo-restart');
  const states = (crr?.status?.containerRecreateStates ?? []).map((c: any) => `${c.name} ${c.phase}`);
  lines.push(
    `ContainerRecreateRequest demo-restart: ${crr ? crr.status?.phase || 'new' : 'waiting for the pod'}${states.length ? ` (${states.join(', ')})` : ''}`,
  );
  done &&= crr?.status?.phase === 'Completed';
  return { lines, done };
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
    if (await get(client, Resources.NodeImage, undefined, node)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const file of ['imagepulljob.yaml', 'imagelistpulljob.yaml', 'pod.yaml'])
    await applyManifests(client, exampleObjects(file, registry, node));
  print('examples applied: examples/imagepulljob.yaml, imagelistpulljob.yaml, pod.yaml');
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
    const { lines, done } = await progressLines(client, node);
    for (const line of lines) if (!last.has(line)) print(line);
    last = new Set(lines);
    if (done) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}
