import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeClient, type KubeObject, Resources, retryOnConflict, silentLogger } from '@kruise/runtime';
import { parse } from 'yaml';
import { type ManagerApp, parseOptions, startManager } from '../../packages/manager/src/index.ts';
import { eventually } from '../support/poll.ts';
import { buildPackage } from './build.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { fmt } from './stats.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const NODES = 1000;

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const until = (check: () => boolean | Promise<boolean>, timeoutMs: number) =>
  eventually(check, timeoutMs, 20);

async function prepare(client: KubeClient): Promise<void> {
  for (const file of [
    'apps.kruise.io_imagepulljobs.yaml',
    'apps.kruise.io_nodeimages.yaml',
    'apps.kruise.io_imagelistpulljobs.yaml',
    'apps.kruise.io_containerrecreaterequests.yaml',
  ]) {
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: parse(readFileSync(join(root, 'deploy/crds', file), 'utf8')),
    });
  }
  for (const ns of ['kruise-system', 'kruise-daemon-config'])
    await client.create(Resources.Namespace, { metadata: { name: ns } });
  const names = Array.from({ length: NODES }, (_, i) => `node-${String(i).padStart(4, '0')}`);
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

/** Fan-out: one job with parallelism 1000 over 1000 NodeImages, against the raw write rate of the same updates. */
async function fanOut(client: KubeClient, app: ManagerApp): Promise<void> {
  await until(
    async () =>
      (await client.list(Resources.NodeImage, { limit: 1 })).metadata.remainingItemCount === NODES - 1,
    60_000,
  );
  await until(async () => (await client.listAll(Resources.NodeImage)).items.every((n) => n.status), 60_000);
  const names = (await client.listAll(Resources.NodeImage)).items.map((n) => n.metadata?.name as string);
  // Raw: the same GET + PUT of every NodeImage, 16 in flight, by a plain client.
  let t = performance.now();
  await pool(names, 16, (name) =>
    retryOnConflict(
      async () => {
        const ni = await client.get(Resources.NodeImage, undefined, name);
        await client.update(Resources.NodeImage, {
          ...ni,
          metadata: { ...ni.metadata, annotations: { touched: 'raw' } },
        });
      },
      { steps: 50, delayMs: 5, jitter: 1 },
    ),
  );
  const rawMs = performance.now() - t;
  await new Promise((r) => setTimeout(r, 500));
  t = performance.now();
  await client.create(Resources.ImagePullJob, {
    metadata: { name: 'fanout', namespace: 'default' },
    spec: { image: 'busybox:v1', parallelism: NODES, completionPolicy: { type: 'Always' } },
  });
  await until(() => app.controllers.has('imagepulljob') && countTagged() === NODES, 60_000);
  const fanMs = performance.now() - t;
  function countTagged(): number {
    let n = 0;
    for (const ni of (app as unknown as { _nodeImages: () => KubeObject[] })._nodeImages())
      if (ni.spec?.images?.busybox) n++;
    return n;
  }
  const rawRate = NODES / (rawMs / 1000);
  const fanRate = NODES / (fanMs / 1000);
  console.log(
    `fan-out: 1 ImagePullJob, parallelism ${NODES}, ${NODES} NodeImages: every spec tagged in ${fmt(fanMs / 1000, 2)} s (goal <= 3 s)`,
  );
  console.log(
    `  raw GET+PUT of the same NodeImages (16 in flight): ${fmt(rawRate, 0)}/s; manager ${fmt(fanRate, 0)}/s = ${fmt((fanRate / rawRate) * 100, 0)} % of raw (goal >= 50 %)`,
  );
}

/** Storm: 200 jobs, then one NodeImage status change of one tag; count the reconciles it triggers. */
async function storm(client: KubeClient, app: ManagerApp): Promise<void> {
  const images = 20;
  const tags = 10;
  const jobs: { name: string; image: string }[] = [];
  for (let i = 0; i < images; i++)
    for (let j = 0; j < tags; j++) jobs.push({ name: `storm-${i}-${j}`, image: `storm${i}:t${j}` });
  await pool(jobs, 16, (j) =>
    client.create(Resources.ImagePullJob, {
      metadata: { name: j.name, namespace: 'default' },
      spec: { image: j.image, parallelism: 1, completionPolicy: { type: 'Always' } },
    }),
  );
  const node = 'node-0000';
  await until(
    async () =>
      Object.keys((await client.get(Resources.NodeImage, undefined, node)).spec?.images ?? {}).filter((k) =>
        k.startsWith('storm'),
      ).length === images,
    60_000,
  );
  await until(async () => {
    const ni = await client.get(Resources.NodeImage, undefined, node);
    return Object.entries(ni.spec?.images ?? {})
      .filter(([k]) => k.startsWith('storm'))
      .every(([, v]: [string, any]) => v.tags.length === tags);
  }, 60_000);
  const counts = app.controllers.get('imagepulljob')!.counts;
  const total = () => counts.success + counts.error + counts.requeueAfter + counts.terminal;
  let last = -1;
  while (last !== total()) {
    last = total();
    await new Promise((r) => setTimeout(r, 1500));
  }
  const before = total();
  const ni = await client.get(Resources.NodeImage, undefined, node);
  const version = ni.spec.images.storm0.tags.find((t: any) => t.tag === 't0').version;
  await client.mergePatchStatus(Resources.NodeImage, undefined, node, {
    status: {
      desired: 0,
      imageStatuses: { storm0: { tags: [{ tag: 't0', phase: 'Pulling', version, progress: 40 }] } },
    },
  });
  await new Promise((r) => setTimeout(r, 2000));
  const triggered = total() - before;
  console.log(
    `storm: ${jobs.length} active jobs (${images} images x ${tags} tags) on ${NODES} nodes, one NodeImage status change of one tag:`,
  );
  console.log(
    `  reconciles triggered ${triggered}; jobs on that tag 1, on that image ${tags}, all ${jobs.length} (goal <= 1.05 x jobs whose tag changed)`,
  );
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
  buildPackage('manager');
  const child = spawn(
    process.execPath,
    [
      join(root, 'packages/manager/dist/main.js'),
      `--kubeconfig=${kubeconfigPath}`,
      '--metrics-addr=0',
      '--health-probe-addr=127.0.0.1:0',
      '--webhook-host=127.0.0.1',
      '--webhook-port=0',
      '--enable-leader-election=false',
      '--feature-gates=ImagePullJobGate=true',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LOG_LEVEL: 'info' } },
  );
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  await until(() => out.includes('kruise-manager started'), 120_000);
  await new Promise((r) => setTimeout(r, 3000));
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  console.log(
    `manager RSS (built JS) with ${NODES} NodeImages, 200+ ImagePullJobs and 10,000 pods cached: ${fmt(rss, 0)} MB (goal <= 200 MB)`,
  );
}

/** kruise-manager: fan-out, reconcile storm, memory. */
export async function benchManager(): Promise<void> {
  const cp = await startControlPlaneProcess();
  const client = KubeClient.load(cp.kubeconfigPath);
  let app: ManagerApp | undefined;
  try {
    await prepare(client);
    app = await startManager(client, options(), silentLogger);
    const nodeImages = app.manager.informers.informerFor<KubeObject>({ resource: Resources.NodeImage });
    (app as unknown as { _nodeImages: () => KubeObject[] })._nodeImages = () => nodeImages.list();
    await fanOut(client, app);
    await storm(client, app);
    await app.stop();
    app = undefined;
    await managerRss(cp.kubeconfigPath, client);
  } finally {
    await app?.stop();
    await cp.stop();
  }
}
