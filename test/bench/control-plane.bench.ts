import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { withConnectionReuse } from '@kruise/runtime';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { benchApplyCost } from './control-plane-apply.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { benchScheduling } from './control-plane-scheduling.ts';
import { figure, sideBySide } from './figures.ts';
import { quantile } from './stats.ts';

const WRITES = 3000;
const CONCURRENCY = 32;
const WATCHERS = 50;
const FANOUT_EVENTS = 200;
const ROUNDS = 3;

/** CPU seconds a process has used so far (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Creates `count` ConfigMaps from `threads` client threads started together; returns writes per second. */
async function writeRate(
  kubeconfigPath: string,
  round: number | string,
  threads: number,
  count = WRITES,
  viaRuntime = false,
): Promise<number> {
  const workers = Array.from(
    { length: threads },
    (_, t) =>
      new Worker(new URL('./write-worker.ts', import.meta.url), {
        workerData: {
          kubeconfigPath,
          prefix: `w-${round}-${threads}-${t}-${viaRuntime ? 'r' : 'c'}`,
          count: count / threads,
          concurrency: CONCURRENCY / threads,
          viaRuntime,
        },
        execArgv: ['--conditions=source'],
      }),
  );
  const next = (w: Worker) =>
    new Promise<any>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
  await Promise.all(workers.map(next));
  const done = workers.map(next);
  const started = performance.now();
  for (const w of workers) w.postMessage('go');
  await Promise.all(done);
  const elapsed = performance.now() - started;
  await Promise.all(workers.map((w) => w.terminate()));
  return count / (elapsed / 1000);
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
    const pid = cp.child.pid!;
    const cpuPerWrite: number[] = [];
    const p50s: number[] = [];
    const p99s: number[] = [];
    await writeRate(cp.kubeconfigPath, 'warmup', 2, 1000);
    console.log(`  ${WRITES} creates per round, ${CONCURRENCY} in flight, after 1000 warm-up writes`);
    const rates = await sideBySide(ROUNDS, {
      'client-node 1 thread': (round) => writeRate(cp.kubeconfigPath, round, 1),
      'runtime KubeClient 1 thread': (round) => writeRate(cp.kubeconfigPath, round, 1, WRITES, true),
      'client-node 2 threads': async (round) => {
        const cpuBefore = cpuSeconds(pid);
        const rate = await writeRate(cp.kubeconfigPath, round, 2);
        cpuPerWrite.push(((cpuSeconds(pid) - cpuBefore) / WRITES) * 1e6);
        return rate;
      },
    });
    figure('control-plane.writes-1-thread', rates['client-node 1 thread'], {
      label: 'creates/s, client-node, 1 client thread',
      unit: '/s',
      digits: 0,
    });
    figure('control-plane.writes-runtime-1-thread', rates['runtime KubeClient 1 thread'], {
      label: 'creates/s, runtime KubeClient (JSON over node:https), 1 thread',
      unit: '/s',
      digits: 0,
    });
    figure('control-plane.writes-per-s', rates['client-node 2 threads'], { digits: 0 });
    figure('control-plane.cpu-per-write', cpuPerWrite, {
      label: 'server CPU per write (2 threads)',
      unit: 'µs',
      digits: 0,
    });
    for (let round = 0; round < ROUNDS; round++) {
      const lat = await fanOut(kc, core, round);
      p50s.push(quantile(lat, 0.5));
      p99s.push(quantile(lat, 0.99));
    }
    figure('control-plane.watch-fanout-p50', p50s, {
      label: `watch fan-out p50, ${WATCHERS} watchers x ${FANOUT_EVENTS} events`,
      unit: 'ms',
    });
    figure('control-plane.watch-fanout-p99', p99s);
    await benchApplyCost(cp.kubeconfigPath, () => cpuSeconds(pid));
    await benchScheduling(cp.kubeconfigPath);
  } finally {
    await cp.stop();
  }
}
