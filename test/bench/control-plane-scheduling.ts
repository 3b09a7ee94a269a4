import { withConnectionReuse } from '@kruise/runtime';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { figure } from './figures.ts';

const PODS = 1000;
const NODES = 10;
const IN_FLIGHT = 32;
const ROUNDS = 3;

/** Runs `work` over `items` with at most `limit` in flight. */
async function pooled<T>(items: T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** One round: 1,000 pending pods, then 10 cordoned nodes uncordoned at once; bindings per second until all are bound. */
async function round(core: CoreV1Api, kc: KubeConfig, r: number): Promise<{ rate: number; spread: number }> {
  const label = { 'bench-round': `r${r}` };
  const ns = `sched-${r}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const nodes = Array.from({ length: NODES }, (_, i) => `sched-${r}-${i}`);
  for (const name of nodes) {
    await core.createNode({ body: { metadata: { name, labels: label }, spec: { unschedulable: true } } });
    const allocatable = { cpu: '64', memory: '256Gi', pods: '250' };
    const now = new Date().toISOString();
    const status = {
      capacity: allocatable,
      allocatable,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
      ],
    };
    await core.patchNodeStatus({ name, body: [{ op: 'add', path: '/status', value: status }] });
  }
  const pods = Array.from({ length: PODS }, (_, i) => `p-${i}`);
  await pooled(pods, IN_FLIGHT, (name) =>
    core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name },
        spec: {
          nodeSelector: label,
          containers: [
            { name: 'c', image: 'nginx', resources: { requests: { cpu: '50m', memory: '64Mi' } } },
          ],
        },
      },
    }),
  );
  // Every pod has been found unschedulable (cordoned nodes) before the clock starts.
  for (;;) {
    const list = await core.listNamespacedPod({ namespace: ns });
    if (list.items.every((p) => p.status?.conditions?.some((c) => c.type === 'PodScheduled'))) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  const bound = new Map<string, string>();
  let done!: () => void;
  const all = new Promise<void>((res) => (done = res));
  const watch = await new Watch(kc).watch(
    `/api/v1/namespaces/${ns}/pods`,
    {},
    (_type, obj) => {
      if (obj.spec?.nodeName) bound.set(obj.metadata.name, obj.spec.nodeName);
      if (bound.size === PODS) done();
    },
    () => undefined,
  );
  const started = performance.now();
  await Promise.all(
    nodes.map((name) =>
      core.patchNode({ name, body: [{ op: 'replace', path: '/spec/unschedulable', value: false }] }),
    ),
  );
  await all;
  const elapsed = performance.now() - started;
  watch.abort();
  const perNode = nodes.map((n) => [...bound.values()].filter((b) => b === n).length);
  return { rate: PODS / (elapsed / 1000), spread: Math.max(...perNode) - Math.min(...perNode) };
}

/** Scheduling throughput: 1,000 pending pods bound onto 10 nodes by the control plane's scheduler. */
export async function benchScheduling(kubeconfigPath: string): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  withConnectionReuse(kc);
  const core = kc.makeApiClient(CoreV1Api);
  const rates: number[] = [];
  const spreads: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const { rate, spread } = await round(core, kc, r);
    rates.push(rate);
    spreads.push(spread);
  }
  figure('control-plane.scheduling-bindings-per-s', rates, { digits: 0 });
  figure('control-plane.scheduling-spread', spreads, {
    label: `most minus fewest pods per node after binding ${PODS} pods onto ${NODES} equal nodes`,
    unit: 'pods',
    digits: 0,
  });
}
