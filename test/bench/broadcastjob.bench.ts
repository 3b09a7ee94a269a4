import { KruiseResources } from '@kruise/api';
import { replaceNodeNameAffinity } from '@kruise/kube-compat';
import { KubeClient, Resources } from '@kruise/runtime';
import { installKruiseApi } from '@kruise/stack/cluster-bootstrap';
import type { ManagerApp } from '../../packages/manager/src/index.ts';
import { startManagerWithWebhooks } from './bound-cluster.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { figure, print, sideBySide } from './figures.ts';
import { deletePods, podWatch } from './pod-watch.ts';
import { pool } from './pool.ts';
import { formatWaits, untilQuiet } from './quiet.ts';
import { BENCH_POD_SPEC } from './workloads.ts';

/** Nodes of the cluster: one BroadcastJob pod each. */
const NODE_COUNT = 1000;
/** Counted rounds side by side (after a warm-up). */
const ROUNDS = 3;
/** Creates in flight on the raw side. */
const IN_FLIGHT = 32;
const POD_SPEC = { ...BENCH_POD_SPEC, restartPolicy: 'Never' };

/**
 * BroadcastJob on 1,000 Nodes (bound by the control plane's scheduler, not run) side by side with
 * the raw pod create rate (the same 1,000 pods, each pinned to its node as the job pins them,
 * created by a plain client, 32 in flight; both through the webhooks a user has): seconds until a
 * watch shows every pod created. Each side starts on a quiet machine with no pod left from the one
 * before; a warm-up round is not counted. Figures: `broadcastjob.pods-1000`,
 * `broadcastjob.raw-creates-1000` and `broadcastjob.pods-1000-of-raw`.
 */
export async function benchBroadcastJob(): Promise<void> {
  const cp = await startControlPlaneProcess();
  const client = KubeClient.load(cp.kubeconfigPath);
  let app: ManagerApp | undefined;
  const raw = podWatch(client, 'app=raw');
  const job = podWatch(client, 'app=bcj');
  try {
    await installKruiseApi(client);
    const room = { cpu: '1000', memory: '4000Gi', pods: '5000' };
    const names = Array.from({ length: NODE_COUNT }, (_, i) => `node-${i}`);
    await pool(names, IN_FLIGHT, (name) =>
      client.create(Resources.Node, {
        metadata: { name, labels: { 'kubernetes.io/hostname': name } },
        status: {
          capacity: room,
          allocatable: room,
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        },
      }),
    );
    app = await startManagerWithWebhooks(client);
    await raw.start();
    await job.start();
    const waited: number[] = [];
    const seconds = await sideBySide(
      ROUNDS,
      {
        raw: async (round) => {
          const t = performance.now();
          await pool(names, IN_FLIGHT, (node) =>
            client.create(Resources.Pod, {
              metadata: { name: `raw-${round + 1}-${node}`, namespace: 'default', labels: { app: 'raw' } },
              spec: { ...POD_SPEC, affinity: replaceNodeNameAffinity(undefined, node) },
            }),
          );
          await raw.reach(NODE_COUNT);
          const s = (performance.now() - t) / 1000;
          await deletePods(client, 'app=raw', raw);
          return s;
        },
        job: async (round) => {
          const name = `bcj-${round + 1}`;
          const t = performance.now();
          await client.create(KruiseResources.BroadcastJob, {
            metadata: { name, namespace: 'default' },
            spec: { template: { metadata: { labels: { app: 'bcj' } }, spec: POD_SPEC } },
          });
          await job.reach(NODE_COUNT);
          const s = (performance.now() - t) / 1000;
          // the job first, so it makes no new pods; its pods then (no kubelet confirms a deletion)
          await client.delete(KruiseResources.BroadcastJob, 'default', name);
          await deletePods(client, 'app=bcj', job);
          return s;
        },
      },
      { warmup: 1, before: async () => waited.push(await untilQuiet()) },
    );
    print(
      `  each side started once the machine was quiet (busy < 20 % for 1 s), after ${formatWaits(waited)} s`,
    );
    figure('broadcastjob.pods-1000', seconds.job, {
      label: `BroadcastJob on ${NODE_COUNT} Nodes: every pod created (webhooks on)`,
      unit: 's',
      digits: 2,
    });
    figure('broadcastjob.raw-creates-1000', seconds.raw, {
      label: `raw create of ${NODE_COUNT} pinned pods, ${IN_FLIGHT} in flight (webhooks on)`,
      unit: 's',
      digits: 2,
    });
    figure(
      'broadcastjob.pods-1000-of-raw',
      seconds.job.map((c, i) => (seconds.raw[i]! / c) * 100),
      { digits: 0 },
    );
  } finally {
    await raw.stop();
    await job.stop();
    await app?.stop();
    await cp.stop();
  }
}
