import { type KubeClient, Resources } from '@kruise/runtime';
import { NODES } from './bound-cluster.ts';
import { figure, print, sideBySide } from './figures.ts';
import { deletePods, podWatch } from './pod-watch.ts';
import { pool } from './pool.ts';
import { formatWaits, untilQuiet } from './quiet.ts';
import { BENCH_POD_SPEC, type BenchWorkload } from './workloads.ts';

/** Pods a scale-up creates. */
export const REPLICAS = 1000;
/** Counted rounds of the scale-up side by side (after a warm-up): its spread needs more than three. */
const SCALE_ROUNDS = 5;
/** Creates in flight on the raw side. */
const IN_FLIGHT = 32;

/**
 * Scale 0 → 1,000 side by side with the control plane's raw pod create rate (the same 1,000 pods
 * created by a plain client, 32 in flight), both through the webhooks a user has (Kruise's pod
 * webhook admits every pod create; a native workload has none): seconds until a watch shows every pod created, then every pod bound
 * (the control plane's scheduler onto `NODES` Nodes; no node runs them). Each side starts on a
 * quiet machine with no pod left from the one before; a warm-up round is not counted. Figures:
 * `<suite>.scale-1000`, `<suite>.raw-creates-1000`, `<suite>.scale-1000-of-raw` (created) and
 * `<suite>.scale-1000-bound-of-raw` (bound).
 */
export async function scaleOfRaw(client: KubeClient, workload: BenchWorkload): Promise<void> {
  const { suite, resource } = workload;
  const hooks = workload.webhooks === false ? 'no webhooks' : 'webhooks on';
  await client.create(resource, workload.manifest('scale', 0, BENCH_POD_SPEC));
  const raw = podWatch(client, 'app=raw');
  const scaled = podWatch(client, 'app=scale');
  await raw.start();
  await scaled.start();
  /** Seconds from `t` until every pod is created, and until every pod is bound. */
  const times = async (t: number, watch: typeof raw) => {
    await watch.reach(REPLICAS);
    const created = (performance.now() - t) / 1000;
    await watch.bound(REPLICAS);
    return { created, bound: (performance.now() - t) / 1000 };
  };
  const bound = { raw: [] as number[], scaled: [] as number[] };
  const waited: number[] = [];
  try {
    const seconds = await sideBySide(
      SCALE_ROUNDS,
      {
        raw: async (round) => {
          const t = performance.now();
          await pool(
            Array.from({ length: REPLICAS }, (_, i) => i),
            IN_FLIGHT,
            (i) =>
              client.create(Resources.Pod, {
                metadata: { name: `raw-${round + 1}-${i}`, namespace: 'default', labels: { app: 'raw' } },
                spec: BENCH_POD_SPEC,
              }),
          );
          const s = await times(t, raw);
          if (round >= 0) bound.raw.push(s.bound);
          await deletePods(client, 'app=raw', raw);
          return s.created;
        },
        scaled: async (round) => {
          const t = performance.now();
          await client.mergePatch(resource, 'default', 'scale', { spec: { replicas: REPLICAS } });
          const s = await times(t, scaled);
          if (round >= 0) bound.scaled.push(s.bound);
          await client.mergePatch(resource, 'default', 'scale', { spec: { replicas: 0 } });
          await scaled.reach(0);
          // The workload deleted them gracefully; with no kubelet, nothing confirms: remove them.
          await deletePods(client, 'app=scale', scaled);
          return s.created;
        },
      },
      { warmup: 1, before: async () => waited.push(await untilQuiet()) },
    );
    print(
      `  each side started once the machine was quiet (busy < 20 % for 1 s), after ${formatWaits(waited)} s`,
    );
    figure(`${suite}.scale-1000`, seconds.scaled, {
      label: `${workload.title} scale 0 -> ${REPLICAS} on ${NODES} Nodes (every pod created, ${hooks})`,
      unit: 's',
      digits: 2,
    });
    figure(`${suite}.raw-creates-1000`, seconds.raw, {
      label: `raw create of ${REPLICAS} pods, ${IN_FLIGHT} in flight (${hooks})`,
      unit: 's',
      digits: 2,
    });
    figure(
      `${suite}.scale-1000-of-raw`,
      seconds.scaled.map((c, i) => (seconds.raw[i]! / c) * 100),
      { digits: 0 },
    );
    figure(
      `${suite}.scale-1000-bound-of-raw`,
      bound.scaled.map((c, i) => (bound.raw[i]! / c) * 100),
      { label: 'the same, until every pod is also bound (the scheduler in both)', unit: '%', digits: 0 },
    );
  } finally {
    await raw.stop();
    await scaled.stop();
  }
}
