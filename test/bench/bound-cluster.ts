import { type KubeClient, Resources, silentLogger } from '@kruise/runtime';
import { installKruiseApi, pointWebhookService } from '@kruise/stack/cluster-bootstrap';
import { type ManagerApp, parseOptions, startManager } from '../../packages/manager/src/index.ts';

/** Ready Nodes of a cluster whose pods are bound, not run. */
export const NODES = 10;

/**
 * What a cluster install puts in place (the CRDs, namespaces, both webhook configurations and the
 * webhook Service) and `NODES` Ready Nodes with room for many pods (no local node: pods are bound
 * by the control plane's scheduler, not run).
 */
export async function prepareBoundCluster(client: KubeClient): Promise<void> {
  await installKruiseApi(client);
  await addBoundNodes(client);
}

/** `NODES` Ready Nodes with room for many pods, no kubelet behind them: pods get bound, never run. */
export async function addBoundNodes(client: KubeClient): Promise<void> {
  const room = { cpu: '1000', memory: '4000Gi', pods: '5000' };
  for (let i = 0; i < NODES; i++)
    await client.create(Resources.Node, {
      metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}` } },
      status: {
        capacity: room,
        allocatable: room,
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      },
    });
}

/** kruise-manager's flags in the benches: no metrics or probes, webhooks on loopback, no election. */
export const MANAGER_FLAGS = [
  '--metrics-addr=0',
  '--health-probe-addr=0',
  '--webhook-host=127.0.0.1',
  '--webhook-port=0',
  '--enable-leader-election=false',
];

/** Starts kruise-manager in this process with its webhooks serving the control plane (as a user has them). */
export async function startManagerWithWebhooks(
  client: KubeClient,
  flags: string[] = MANAGER_FLAGS,
  tuning: Parameters<typeof startManager>[3] = {},
): Promise<ManagerApp> {
  const app = await startManager(client, parseOptions(flags), silentLogger, tuning);
  await pointWebhookService(client, app.webhookPort);
  return app;
}
