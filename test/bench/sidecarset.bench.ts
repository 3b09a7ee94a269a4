import { KruiseResources, type SidecarSet } from '@kruise/api';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { ManagerApp } from '../../packages/manager/src/index.ts';
import { eventually } from '../support/poll.ts';
import { injectedPod, stampedSidecarSet } from '../support/sidecarset.ts';
import { NODES, prepareBoundCluster, startManagerWithWebhooks } from './bound-cluster.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { startCriSystem } from './cri-system.ts';
import { figure } from './figures.ts';
import { pool } from './pool.ts';
import { sidecarInPlaceVsReCreate } from './sidecarset-upgrade.ts';

/** SidecarSets, each with one matched pod. */
const SETS = 5000;
const ROUNDS = 3;
/** Writes in flight while the cluster is filled or statuses are reset. */
const CONCURRENCY = 32;

const names = Array.from({ length: SETS }, (_, i) => `ss-${i}`);

/** Whether every SidecarSet's status counts its one pod at its current generation. */
async function allCurrent(client: KubeClient): Promise<boolean> {
  const list = (await client.list(KruiseResources.SidecarSet)).items as (SidecarSet & KubeObject)[];
  return (
    list.length === SETS &&
    list.every((s) => s.status?.matchedPods === 1 && s.status.observedGeneration === s.metadata?.generation)
  );
}

/**
 * SidecarSet: kruise-manager restarted with 5,000 SidecarSets and 5,000 matched pods (bound, not
 * run) whose statuses were reset while it was down: seconds from its start until every SidecarSet's
 * status is current (upstream: over 30 minutes for 50,000, #1718); then, on a real node, a cold
 * sidecar upgrade of 100 running pods in place vs recreating them.
 */
export async function benchSidecarSet(): Promise<void> {
  const cp = await startControlPlaneProcess();
  const client = KubeClient.load(cp.kubeconfigPath);
  let app: ManagerApp | undefined;
  try {
    await prepareBoundCluster(client);
    app = await startManagerWithWebhooks(client);
    await pool(names, CONCURRENCY, async (name) => {
      const ss = stampedSidecarSet({
        apiVersion: 'apps.kruise.io/v1beta1',
        kind: 'SidecarSet',
        metadata: { name },
        spec: {
          selector: { matchLabels: { sidecarset: name } },
          containers: [{ name: 'sidecar', image: 'busybox:v1' }],
        },
      } as SidecarSet);
      const stored = (await client.create(KruiseResources.SidecarSet, ss as KubeObject)) as SidecarSet;
      await client.create(
        Resources.Pod,
        injectedPod(stored, {
          metadata: { name: `${name}-pod`, namespace: 'default', labels: { sidecarset: name } },
          spec: {
            nodeName: `node-${Number(name.slice(3)) % NODES}`,
            containers: [{ name: 'app', image: 'busybox:v1' }],
          },
        }),
      );
    });
    await eventually(() => allCurrent(client).then((ok) => ok || undefined), 300_000, 1000);
    const samples: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await app.stop();
      app = undefined;
      await pool(names, CONCURRENCY, (name) =>
        client.mergePatchStatus(KruiseResources.SidecarSet, undefined, name, {
          status: { observedGeneration: 0, matchedPods: 0, updatedPods: 0, readyPods: 0 },
        }),
      );
      const t = performance.now();
      app = await startManagerWithWebhooks(client);
      await eventually(() => allCurrent(client).then((ok) => ok || undefined), 300_000, 250);
      samples.push((performance.now() - t) / 1000);
    }
    figure('sidecarset.restart-5000-status', samples, { digits: 1 });
  } finally {
    await app?.stop();
    await cp.stop();
  }
  const sys = await startCriSystem('bench-node');
  try {
    await sidecarInPlaceVsReCreate(sys);
  } finally {
    await sys.stop();
  }
}
