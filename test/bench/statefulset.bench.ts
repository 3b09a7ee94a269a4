import { KubeClient } from '@kruise/runtime';
import type { ManagerApp } from '../../packages/manager/src/index.ts';
import { MANAGER_FLAGS, prepareBoundCluster, startManagerWithWebhooks } from './bound-cluster.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { startCriSystem } from './cri-system.ts';
import { figure } from './figures.ts';
import { inPlaceVsReCreate } from './inplace-vs-recreate.ts';
import { managerRssWithPods } from './manager-rss.ts';
import { orderedReadyOverhead } from './ordered-ready.ts';
import { REPLICAS, scaleOfRaw } from './scale-of-raw.ts';
import { statefulSetWorkload } from './workloads.ts';

/**
 * Advanced StatefulSet: a Parallel scale-up's create rate vs raw pod creates and the manager's
 * memory with its 1,000 pods cached (no node runs pods); then, on a real node, OrderedReady's own
 * share of a scale-up and in-place update vs ReCreate of 50 pods.
 */
export async function benchStatefulSet(): Promise<void> {
  const parallel = statefulSetWorkload('Parallel');
  const cp = await startControlPlaneProcess();
  const client = KubeClient.load(cp.kubeconfigPath);
  let app: ManagerApp | undefined;
  try {
    await prepareBoundCluster(client);
    app = await startManagerWithWebhooks(client);
    await scaleOfRaw(client, parallel);
    const rss = await managerRssWithPods(cp.kubeconfigPath, client, app, parallel, {
      sets: ['big'],
      replicas: REPLICAS,
      rounds: 1,
      flags: MANAGER_FLAGS,
    });
    app = undefined;
    figure('statefulset.manager-rss', rss, {
      label: `kruise-manager RSS (built JS), 1 Advanced StatefulSet x ${REPLICAS} pods cached`,
      unit: 'MB',
      digits: 0,
    });
  } finally {
    await app?.stop();
    await cp.stop();
  }
  const sys = await startCriSystem('bench-node');
  try {
    await orderedReadyOverhead(sys);
    await inPlaceVsReCreate(sys, parallel);
  } finally {
    await sys.stop();
  }
}
