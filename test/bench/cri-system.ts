import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient, Resources } from '@kruise/runtime';
import {
  installKruiseApi,
  type Program,
  pointWebhookService,
  startDaemonProcess,
  startLocalNodeProcess,
  startManagerProcess,
} from '@kruise/stack/processes';
import { freePort } from '../support/free-port.ts';
import { eventually } from '../support/poll.ts';

/** A container command that runs until SIGTERM and then exits at once (grace periods cost nothing). */
export const LOOP = ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 1; done"];

const script = join(dirname(fileURLToPath(import.meta.url)), '../../packages/cri/scripts/cri-stack.sh');

/** A bench's own runtime stack and Kruise processes: what a user's node and control plane run. */
export interface CriSystem {
  client: KubeClient;
  /** `host:port` of the stack's local registry (busybox:v1, busybox:v2). */
  registry: string;
  /** Its own directory (containerd's log is under `s/containerd/containerd.log`). */
  dir: string;
  /** Deletes every pod, stops the processes and the runtime stack, removes the directory. */
  stop(): Promise<void>;
}

/**
 * Starts a private containerd + registry (packages/cri/scripts/cri-stack.sh), the control plane,
 * kruise-manager (with its webhooks), a local node named `node` and kruise-daemon on it.
 */
export async function startCriSystem(node: string, localNodeArgs: string[] = []): Promise<CriSystem> {
  const dir = mkdtempSync(join(tmpdir(), 'kbench-'));
  const env = {
    ...process.env,
    CRI_STACK_DIR: join(dir, 's'),
    REG_PORT: String(await freePort()),
    BIG_MB: '1',
  };
  execFileSync('bash', [script, 'install'], { env, stdio: 'ignore' });
  execFileSync('bash', [script, 'up'], { env, stdio: 'ignore' });
  const socket = `unix://${join(dir, 's/containerd/containerd.sock')}`;
  const cp = await ControlPlane.start();
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cp.kubeconfig());
  const client = KubeClient.fromString(cp.kubeconfig());
  const programs: Program[] = [];
  const stop = async () => {
    await client
      .list(Resources.Pod)
      .then((l) =>
        Promise.all(
          l.items.map((p) =>
            client
              .delete(Resources.Pod, p.metadata!.namespace!, p.metadata!.name!, { gracePeriodSeconds: 1 })
              .catch(() => undefined),
          ),
        ),
      )
      .catch(() => undefined);
    await eventually(async () => (await client.list(Resources.Pod)).items.length === 0, 60_000, 200).catch(
      () => undefined,
    );
    for (const p of programs.reverse()) await p.stop();
    await cp.stop();
    execFileSync('bash', [script, 'down'], { env, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await installKruiseApi(client);
    const { program: manager, webhookPort } = await startManagerProcess(kubeconfig);
    programs.push(manager);
    await pointWebhookService(client, webhookPort);
    programs.push(await startLocalNodeProcess(kubeconfig, node, socket, localNodeArgs));
    programs.push(await startDaemonProcess(kubeconfig, node, socket));
  } catch (err) {
    await stop();
    throw err;
  }
  return { client, registry: `127.0.0.1:${env.REG_PORT}`, dir, stop };
}
