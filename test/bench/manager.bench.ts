import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KruiseResources } from '@kruise/api';
import {
  KubeClient,
  type KubeObject,
  Resources,
  retryOnConflict,
  silentLogger,
  withoutManagedFields,
} from '@kruise/runtime';
import { parse } from 'yaml';
import { type ManagerApp, parseOptions, startManager } from '../../packages/manager/src/index.ts';
import { eventually } from '../support/poll.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { figure, print, sideBySide } from './figures.ts';
import { managerProcessRss } from './manager-rss.ts';
import { pool } from './pool.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const NODES = 1000;
const ROUNDS = 3;

const until = (check: () => boolean | Promise<boolean>, timeoutMs: number) =>
  eventually(check, timeoutMs, 20);

/**
 * The bench's nodes have no kubelet: no heartbeat. A control plane that lets them go Ready=Unknown
 * after kube-controller-manager's 40 s would, in the middle of a round, taint them all (20,000
 * node writes at 10,000 nodes, each a NodeImage reconcile) and leave later NodeImages uncreated.
 */
const controlPlaneArgs = ['--node-monitor-grace-period=24h'];

/** Every CRD of deploy/ (the manager waits for the caches of all its controllers), namespaces and Ready nodes. */
async function prepare(client: KubeClient, nodes: number): Promise<void> {
  for (const file of readdirSync(join(root, 'deploy/crds'))) {
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: parse(readFileSync(join(root, 'deploy/crds', file), 'utf8')),
    });
  }
  for (const ns of ['kruise-system', 'kruise-daemon-config'])
    await client.create(Resources.Namespace, { metadata: { name: ns } });
  const names = Array.from({ length: nodes }, (_, i) => `node-${String(i).padStart(4, '0')}`);
  await pool(names, 32, (name) =>
    client.create(Resources.Node, {
      metadata: { name, labels: { zone: 'a' } },
      status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    }),
  );
}

const options = () =>
  parseOptions([
    '--metrics-addr=0',
    '--health-probe-addr=0',
    '--webhook-host=127.0.0.1',
    '--webhook-port=0',
    '--enable-leader-election=false',
    '--nodeimage-creation-delay=0s',
    '--feature-gates=ImagePullJobGate=true',
  ]);

/**
 * Waits until the manager's cache shows every NodeImage's spec with `image`. The check scans the
 * cache in the manager's own process, so it runs every `nodes / 50` ms (20 ms at 1,000 nodes, 200 ms
 * at 10,000): the observer must not take a noticeable share of the CPU it measures.
 */
async function tagged(app: ManagerApp, image: string, nodes: number): Promise<void> {
  // The controllers' own informer (the same trim, or the factory refuses a second form).
  const nodeImages = app.manager.informers.informerFor<KubeObject>({
    resource: KruiseResources.NodeImage,
    transform: withoutManagedFields,
  });
  await eventually(
    () => nodeImages.list().filter((ni) => ni.spec?.images?.[image]).length === nodes,
    120_000,
    Math.max(20, nodes / 50),
  );
}

/** One ImagePullJob with parallelism `nodes`: seconds from its create until every NodeImage spec names its image. */
async function fanOutOnce(
  client: KubeClient,
  app: ManagerApp,
  nodes: number,
  round: number,
): Promise<number> {
  const image = `fan${round}`;
  const t = performance.now();
  await client.create(KruiseResources.ImagePullJob, {
    metadata: { name: `fanout-${round}`, namespace: 'default' },
    spec: { image: `${image}:v1`, parallelism: nodes, completionPolicy: { type: 'Always' } },
  });
  await tagged(app, image, nodes);
  return (performance.now() - t) / 1000;
}

/** Seconds for a plain client to GET + PUT every NodeImage once, 16 in flight (the raw write rate). */
async function rawWrites(client: KubeClient, round: number): Promise<number> {
  const names = (await client.listAll(KruiseResources.NodeImage)).items.map(
    (n) => n.metadata?.name as string,
  );
  const t = performance.now();
  await pool(names, 16, (name) =>
    retryOnConflict(
      async () => {
        const ni = await client.get(KruiseResources.NodeImage, undefined, name);
        await client.update(KruiseResources.NodeImage, {
          ...ni,
          metadata: { ...ni.metadata, annotations: { touched: `raw-${round}` } },
        });
      },
      { steps: 50, delayMs: 5, jitter: 1 },
    ),
  );
  return (performance.now() - t) / 1000;
}

/**
 * Waits until the manager has made a NodeImage (with a status) for each of `nodes` nodes. Not
 * measured, so checked once a second: listing 10,000 NodeImages every 20 ms would itself keep the
 * control plane busy.
 */
async function nodeImagesReady(client: KubeClient, nodes: number): Promise<void> {
  await eventually(
    async () =>
      (await client.list(KruiseResources.NodeImage, { limit: 1 })).metadata.remainingItemCount === nodes - 1,
    300_000,
    1000,
  );
  await eventually(
    async () => (await client.listAll(KruiseResources.NodeImage)).items.every((n) => n.status),
    300_000,
    1000,
  );
}

/**
 * Fan-out at 1,000 nodes, side by side with the raw write rate of the same NodeImage updates (order
 * alternating each round): one job with parallelism 1000 per round, each round a new image.
 */
async function fanOut(client: KubeClient, app: ManagerApp): Promise<void> {
  await nodeImagesReady(client, NODES);
  const seconds = await sideBySide(ROUNDS, {
    raw: async (round) => {
      const s = await rawWrites(client, round);
      await new Promise((r) => setTimeout(r, 500));
      return s;
    },
    manager: async (round) => {
      const s = await fanOutOnce(client, app, NODES, round);
      await new Promise((r) => setTimeout(r, 500));
      return s;
    },
  });
  figure('manager.fanout-1000', seconds.manager, { digits: 2 });
  figure('manager.raw-writes-1000', seconds.raw, {
    label: `raw GET+PUT of the same ${NODES} NodeImages, 16 in flight`,
    unit: 's',
    digits: 2,
  });
  // Rates per round pair: the same NODES writes each, so the share is raw time / fan-out time.
  figure(
    'manager.fanout-1000-of-raw',
    seconds.manager.map((m, i) => (seconds.raw[i]! / m) * 100),
    { digits: 0 },
  );
}

/** Fan-out at 10,000 nodes: a control plane, 10,000 Nodes and the manager's NodeImages of its own. */
async function fanOut10k(): Promise<void> {
  const nodes = 10_000;
  const cp = await startControlPlaneProcess(controlPlaneArgs);
  const client = KubeClient.load(cp.kubeconfigPath);
  let app: ManagerApp | undefined;
  try {
    await prepare(client, nodes);
    app = await startManager(client, options(), silentLogger);
    await nodeImagesReady(client, nodes);
    const seconds: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      seconds.push(await fanOutOnce(client, app, nodes, round));
      await new Promise((r) => setTimeout(r, 1000));
    }
    figure('manager.fanout-10000', seconds, { digits: 2 });
  } finally {
    await app?.stop();
    await cp.stop();
  }
}

/**
 * Storm: 200 jobs (20 images x 10 tags), then per round one NodeImage status change of one tag
 * (a different tag each round); the reconciles it triggers, per job on that tag (1).
 */
async function storm(client: KubeClient, app: ManagerApp): Promise<void> {
  const images = 20;
  const tags = 10;
  const jobs: { name: string; image: string }[] = [];
  for (let i = 0; i < images; i++)
    for (let j = 0; j < tags; j++) jobs.push({ name: `storm-${i}-${j}`, image: `storm${i}:t${j}` });
  await pool(jobs, 16, (j) =>
    client.create(KruiseResources.ImagePullJob, {
      metadata: { name: j.name, namespace: 'default' },
      spec: { image: j.image, parallelism: 1, completionPolicy: { type: 'Always' } },
    }),
  );
  const node = 'node-0000';
  await until(async () => {
    const ni = await client.get(KruiseResources.NodeImage, undefined, node);
    const mine = Object.entries(ni.spec?.images ?? {}).filter(([k]) => k.startsWith('storm'));
    return mine.length === images && mine.every(([, v]: [string, any]) => v.tags.length === tags);
  }, 60_000);
  const counts = app.controllers.get('imagepulljob')!.counts;
  const total = () => counts.success + counts.error + counts.requeueAfter + counts.terminal;
  const settle = async () => {
    let last = -1;
    while (last !== total()) {
      last = total();
      await new Promise((r) => setTimeout(r, 1500));
    }
  };
  const perJob: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await settle();
    const before = total();
    const ni = await client.get(KruiseResources.NodeImage, undefined, node);
    const image = `storm${round}`;
    const version = ni.spec.images[image].tags.find((t: any) => t.tag === 't0').version;
    await client.mergePatchStatus(KruiseResources.NodeImage, undefined, node, {
      status: {
        desired: 0,
        imageStatuses: { [image]: { tags: [{ tag: 't0', phase: 'Pulling', version, progress: 40 }] } },
      },
    });
    await settle();
    const jobsOnTag = jobs.filter((j) => j.image === `${image}:t0`).length;
    perJob.push((total() - before) / jobsOnTag);
  }
  print(
    `  storm: ${jobs.length} active jobs (${images} images x ${tags} tags) on ${NODES} nodes; per round one tag's status changes on one NodeImage (1 job on that tag, ${tags} on that image)`,
  );
  figure('manager.storm', perJob, { digits: 2 });
}

/** Manager RSS with 1,000 NodeImages and 10,000 pods cached, as its own process. */
async function managerRss(kubeconfigPath: string, client: KubeClient): Promise<void> {
  const pods = Array.from({ length: 10_000 }, (_, i) => i);
  await pool(pods, 32, (i) =>
    client.create(Resources.Pod, {
      metadata: { name: `pod-${i}`, namespace: 'default', labels: { app: `app-${i % 100}` } },
      spec: {
        nodeName: `node-${String(i % NODES).padStart(4, '0')}`,
        containers: [
          { name: 'app', image: 'busybox:v1' },
          { name: 'sidecar', image: 'busybox:v1' },
        ],
      },
    }),
  );
  // Measured as shipped: compiled JavaScript (the Dockerfile's form), not the TypeScript sources.
  const rss = await managerProcessRss(
    kubeconfigPath,
    [
      '--metrics-addr=0',
      '--health-probe-addr=127.0.0.1:0',
      '--webhook-host=127.0.0.1',
      '--webhook-port=0',
      '--enable-leader-election=false',
      '--feature-gates=ImagePullJobGate=true',
    ],
    3000,
  );
  figure('manager.rss', [rss], { digits: 0 });
}

/** kruise-manager: fan-out at 1,000 and 10,000 nodes, reconcile storm, memory. */
export async function benchManager(): Promise<void> {
  const cp = await startControlPlaneProcess(controlPlaneArgs);
  const client = KubeClient.load(cp.kubeconfigPath);
  let app: ManagerApp | undefined;
  try {
    await prepare(client, NODES);
    app = await startManager(client, options(), silentLogger);
    await fanOut(client, app);
    await storm(client, app);
    await app.stop();
    app = undefined;
    await managerRss(cp.kubeconfigPath, client);
  } finally {
    await app?.stop();
    await cp.stop();
  }
  await fanOut10k();
}
