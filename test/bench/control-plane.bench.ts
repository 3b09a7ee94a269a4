import { withConnectionReuse } from '@kruise/runtime';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { fmt, median, quantile } from './stats.ts';

const WRITES = 3000;
const CONCURRENCY = 32;
const WATCHERS = 50;
const FANOUT_EVENTS = 200;
const ROUNDS = 3;

async function writeRate(core: CoreV1Api, round: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < WRITES) {
        const i = next++;
        await core.createNamespacedConfigMap({
          namespace: 'default',
          body: { metadata: { name: `w-${round}-${i}` }, data: { i: String(i) } },
        });
      }
    }),
  );
  return WRITES / ((performance.now() - started) / 1000);
}

async function fanOut(kc: KubeConfig, core: CoreV1Api, round: number): Promise<number[]> {
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const controllers: AbortController[] = [];
  let received = 0;
  for (let w = 0; w < WATCHERS; w++) {
    const watch = new Watch(kc);
    controllers.push(
      await watch.watch(
        '/api/v1/namespaces/default/configmaps',
        { labelSelector: `fan=r${round}`, allowWatchBookmarks: true },
        (type, obj) => {
          if (type !== 'ADDED') return;
          const t = sentAt.get(obj.metadata.name);
          if (t !== undefined) latencies.push(performance.now() - t);
          received++;
        },
        () => undefined,
      ),
    );
  }
  await new Promise((r) => setTimeout(r, 200));
  for (let i = 0; i < FANOUT_EVENTS; i++) {
    const name = `f-${round}-${i}`;
    sentAt.set(name, performance.now());
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name, labels: { fan: `r${round}` } } },
    });
    await new Promise((r) => setTimeout(r, 5));
  }
  const deadline = Date.now() + 10_000;
  while (received < WATCHERS * FANOUT_EVENTS && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  for (const c of controllers) c.abort();
  if (received < WATCHERS * FANOUT_EVENTS)
    throw new Error(`only ${received} of ${WATCHERS * FANOUT_EVENTS} events arrived`);
  return latencies;
}

/** Control plane: writes/s and watch fan-out latency through client-node over keep-alive HTTPS. */
export async function benchControlPlane(): Promise<void> {
  const cp = await startControlPlaneProcess();
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfigPath);
    withConnectionReuse(kc);
    const core = kc.makeApiClient(CoreV1Api);
    const rates: number[] = [];
    const p50s: number[] = [];
    const p99s: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      rates.push(await writeRate(core, round));
      const lat = await fanOut(kc, core, round);
      p50s.push(quantile(lat, 0.5));
      p99s.push(quantile(lat, 0.99));
    }
    console.log(
      `control-plane writes/s (${WRITES} creates, ${CONCURRENCY} in flight, ${ROUNDS} rounds): median ${fmt(median(rates), 0)} [${rates.map((r) => fmt(r, 0)).join(', ')}]  goal >= 2000`,
    );
    console.log(
      `control-plane watch fan-out, ${WATCHERS} watchers x ${FANOUT_EVENTS} events (write start -> event received): p50 median ${fmt(median(p50s))} ms, p99 median ${fmt(median(p99s))} ms [p99s ${p99s.map((p) => fmt(p)).join(', ')}]  goal p99 <= 50 ms`,
    );
  } finally {
    await cp.stop();
  }
}
