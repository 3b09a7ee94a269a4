import { ControlPlane } from '@kruise/control-plane';
import { Informer, KubeClient, Resources, WorkQueue } from '@kruise/runtime';
import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';
import { eventually } from '../support/poll.ts';
import { figure, sideBySide } from './figures.ts';

const KEYS = 10_000;
const ROUNDS = 5;
const PODS = 1000;

/** Adds per second into a WorkQueue: 10k distinct keys, then every key added again while queued. */
function queueThroughput(): { distinct: number; duplicate: number } {
  const q = new WorkQueue<string>();
  const keys = Array.from({ length: KEYS }, (_, i) => `ns/obj-${i}`);
  let t = performance.now();
  for (const k of keys) q.add(k);
  const distinct = KEYS / ((performance.now() - t) / 1000);
  t = performance.now();
  for (const k of keys) q.add(k);
  const duplicate = KEYS / ((performance.now() - t) / 1000);
  q.shutDown();
  return { distinct, duplicate };
}

/** Adds, gets and dones per second through the full cycle with 10k keys. */
async function queueCycle(): Promise<number> {
  const q = new WorkQueue<string>();
  const keys = Array.from({ length: KEYS }, (_, i) => `ns/obj-${i}`);
  const t = performance.now();
  for (const k of keys) q.add(k);
  for (let i = 0; i < KEYS; i++) {
    const k = await q.get();
    q.done(k!);
  }
  return KEYS / ((performance.now() - t) / 1000);
}

function heapMb(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

const podBody = (i: number) => ({
  metadata: {
    name: `pod-${i}`,
    namespace: 'bench',
    labels: { app: 'bench', 'pod-template-hash': 'abc123', index: String(i) },
    annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' },
  },
  spec: {
    nodeName: `node-${i % 50}`,
    containers: [
      {
        name: 'app',
        image: '127.0.0.1:5000/busybox:v1',
        command: ['sleep', '3600'],
        env: [{ name: 'A', value: 'x' }],
        ports: [{ containerPort: 8080 }],
      },
      { name: 'sidecar', image: '127.0.0.1:5000/busybox:v1' },
    ],
  },
});

/** Waits until an informer's cache holds every pod (the figure is per full cache). */
const cached = (count: () => number) => eventually(() => count() === PODS, 30_000, 10);

/**
 * Heap (MB) an informer's cache of 1,000 pods holds, ours or client-node's, measured in this
 * process: the heap with the informer synced, less the heap once it is stopped and released (so
 * garbage of an earlier round, collected late, cannot make a figure negative).
 */
async function informerMemory(cp: ControlPlane, which: 'ours' | 'client-node'): Promise<number> {
  const withCache = await (async () => {
    if (which === 'ours') {
      const ours = new Informer(KubeClient.fromString(cp.kubeconfig()), {
        resource: Resources.Pod,
        namespace: 'bench',
      });
      ours.start();
      await ours.waitForSync();
      await cached(() => ours.list().length);
      const mb = heapMb();
      await ours.stop();
      return mb;
    }
    const kc = new KubeConfig();
    kc.loadFromString(cp.kubeconfig());
    const core = kc.makeApiClient(CoreV1Api);
    const theirs = makeInformer(kc, '/api/v1/namespaces/bench/pods', () =>
      core.listNamespacedPod({ namespace: 'bench' }),
    );
    await theirs.start();
    // client-node's start() can resolve before its cache holds the list: measure a full cache only.
    await cached(() => theirs.list().length);
    const mb = heapMb();
    await theirs.stop();
    return mb;
  })();
  await new Promise((r) => setTimeout(r, 1000));
  return withCache - heapMb();
}

/** Controller kit: work queue throughput and informer memory. */
export async function benchRuntime(): Promise<void> {
  const distinct: number[] = [];
  const duplicate: number[] = [];
  const cycle: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = queueThroughput();
    distinct.push(t.distinct / 1e6);
    duplicate.push(t.duplicate / 1e6);
    cycle.push((await queueCycle()) / 1e6);
  }
  const opts = (label: string) => ({ label: `work queue, ${KEYS} keys, ${label}`, unit: 'M/s', digits: 2 });
  figure('runtime.queue-add', distinct, opts('add (new keys)'));
  figure('runtime.queue-add-queued', duplicate, opts('add (keys already queued)'));
  figure('runtime.queue-cycle', cycle, opts('add + get + done per key'));
  if (!globalThis.gc) {
    console.log('  (run with --expose-gc for the memory figures)');
    return;
  }
  const cp = await ControlPlane.start();
  try {
    const client = KubeClient.fromString(cp.kubeconfig());
    await client.create(Resources.Namespace, { metadata: { name: 'bench' } });
    for (let i = 0; i < PODS; i++) await client.create(Resources.Pod, podBody(i));
    const heap = await sideBySide(3, {
      ours: () => informerMemory(cp, 'ours'),
      'client-node': () => informerMemory(cp, 'client-node'),
    });
    figure('runtime.informer-heap', heap.ours, {
      label: `informer heap, ${PODS} cached pods, ours`,
      unit: 'MB',
    });
    figure('runtime.informer-heap-client-node', heap['client-node'], {
      label: `informer heap, ${PODS} cached pods, client-node makeInformer`,
      unit: 'MB',
    });
  } finally {
    await cp.stop();
  }
}
