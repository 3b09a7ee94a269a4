import { KubeClient } from '@kruise/runtime';
import { addBoundNodes } from './bound-cluster.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { scaleOfRaw } from './scale-of-raw.ts';
import { deploymentWorkload } from './workloads.ts';

/**
 * The control plane's own Deployment and ReplicaSet controllers (kube-controller-manager's part):
 * a Deployment scaled 0 -> 1,000 on 10 Nodes (bound by the control plane's scheduler, never run),
 * side by side with 1,000 pods created directly (32 in flight) and bound by the same scheduler.
 * Figures: `deployment.scale-1000` and `deployment.raw-creates-1000` (s until every pod exists),
 * `deployment.scale-1000-of-raw` (created) and `deployment.scale-1000-bound-of-raw` (bound, the goal).
 */
export async function benchDeployment(): Promise<void> {
  // No kubelet heartbeats: the Nodes must not go Ready=Unknown (and tainted) while the bench runs.
  const cp = await startControlPlaneProcess(['--node-monitor-grace-period=24h']);
  try {
    const client = KubeClient.load(cp.kubeconfigPath);
    await addBoundNodes(client);
    await scaleOfRaw(client, deploymentWorkload);
  } finally {
    await cp.stop();
  }
}
