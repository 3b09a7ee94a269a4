import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { installKruiseApi, pointWebhookService, withdrawWebhooks } from '@kruise/stack/cluster-bootstrap';
import type { Program } from '@kruise/stack/program';
import {
  startDaemonProcess,
  startLocalNodeProcess,
  startManagerProcess,
} from '@kruise/stack/program-recipes';
import { eventually } from './poll.ts';

/**
 * Kruise on one node of a real runtime: the control plane (in this process, with the Kruise API),
 * then kruise-manager (its webhooks pointed at), a local node and kruise-daemon as processes.
 */
export interface KruiseSystem {
  cp: ControlPlane;
  client: KubeClient;
  kubeconfig: string;
  node: string;
  /** The CRI endpoint (`unix://…`) of the local node and kruise-daemon. */
  runtimeEndpoint: string;
  /** Where the control plane's local-path provisioner makes PersistentVolume directories. */
  localPathRoot: string;
  manager: Program;
  localNode: Program;
  daemon: Program;
  /** Restarts the local node (e.g. after a test stopped it). */
  startLocalNode(): Promise<Program>;
  /** Deletes the node's pods and waits for them to go, then stops the processes and the control plane. */
  stop(): Promise<void>;
}

/**
 * Starts Kruise for node `node` on `runtimeEndpoint`; the local node also gets `localNodeArgs`,
 * kruise-manager `options.managerArgs`.
 */
export async function startKruiseSystem(
  node: string,
  runtimeEndpoint: string,
  localNodeArgs: string[] = [],
  options: { managerArgs?: string[] } = {},
): Promise<KruiseSystem> {
  const dir = mkdtempSync(join(tmpdir(), 'kruise-system-'));
  // local-path volumes in the system's own directory (removed with it), not /var/lib/kruise
  const localPathRoot = join(dir, 'local-path');
  const cp = await ControlPlane.start({ localPathRoot });
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cp.kubeconfig());
  const client = KubeClient.fromString(cp.kubeconfig());
  const programs: Partial<Pick<KruiseSystem, 'manager' | 'localNode' | 'daemon'>> = {};
  let system: KruiseSystem | undefined;
  // What runs now: a test may have replaced a program (e.g. restarted the daemon) on the system.
  const running = () =>
    new Set([
      ...Object.values(programs),
      ...(system ? [system.manager, system.localNode, system.daemon] : []),
    ]);
  const stop = async () => {
    // The manager first, so no workload replaces the pods deleted next; then the pods, through
    // the local node, so no container outlives the system.
    await (system?.manager ?? programs.manager)?.stop();
    await withdrawWebhooks(client);
    const pods = await client.list(Resources.Pod).catch(() => ({ items: [] as KubeObject[] }));
    await Promise.all(
      pods.items
        .filter((p) => p.spec?.nodeName === node)
        .map((p) =>
          client
            .delete(Resources.Pod, p.metadata!.namespace!, p.metadata!.name!, { gracePeriodSeconds: 1 })
            .catch(() => undefined),
        ),
    );
    await eventually(
      async () => (await client.list(Resources.Pod)).items.every((p) => p.spec?.nodeName !== node),
      60_000,
      100,
    ).catch(() => undefined);
    await Promise.all([...running()].map((p) => p.stop()));
    await cp.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const startLocalNode = () => startLocalNodeProcess(kubeconfig, node, runtimeEndpoint, localNodeArgs);
  try {
    await installKruiseApi(client);
    const [managerStart, localNodeStart] = await Promise.allSettled([
      startManagerProcess(kubeconfig, options.managerArgs),
      startLocalNode(),
    ]);
    if (managerStart.status === 'fulfilled') programs.manager = managerStart.value.program;
    if (localNodeStart.status === 'fulfilled') programs.localNode = localNodeStart.value;
    if (managerStart.status === 'rejected') throw managerStart.reason;
    if (localNodeStart.status === 'rejected') throw localNodeStart.reason;
    const { program: manager, webhookPort } = managerStart.value;
    const localNode = localNodeStart.value;
    await pointWebhookService(client, webhookPort);
    const daemon = await startDaemonProcess(kubeconfig, node, runtimeEndpoint);
    programs.daemon = daemon;
    const started: KruiseSystem = {
      cp,
      client,
      kubeconfig,
      node,
      runtimeEndpoint,
      localPathRoot,
      manager,
      localNode,
      daemon,
      async startLocalNode() {
        started.localNode = programs.localNode = await startLocalNode();
        return started.localNode;
      },
      stop,
    };
    system = started;
    return started;
  } catch (err) {
    await stop();
    throw err;
  }
}
