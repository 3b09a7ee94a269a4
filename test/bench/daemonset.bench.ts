import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient, Resources } from '@kruise/runtime';
import { installKruiseApi, pointWebhookService } from '@kruise/stack/cluster-bootstrap';
import { freePort } from '@kruise/stack/free-port';
import { startManagerProcess } from '@kruise/stack/program-recipes';
import { startTestNodes } from '../support/local-nodes.ts';
import { eventually } from '../support/poll.ts';
import type { CriSystem } from './cri-system.ts';
import { inPlaceVsReCreate } from './inplace-vs-recreate.ts';
import { daemonSetWorkload } from './workloads.ts';

const NODES = 5;
const script = join(dirname(fileURLToPath(import.meta.url)), '../../packages/cri/scripts/cri-stack.sh');

/**
 * Kruise on `NODES` local nodes, each on a containerd of its own, pulling from one local registry:
 * the control plane in this process, kruise-manager as a process with its webhooks.
 */
async function startNodes(): Promise<CriSystem> {
  const dir = mkdtempSync(join(tmpdir(), 'kbench-ads-'));
  const env = {
    ...process.env,
    CRI_STACK_DIR: join(dir, 's'),
    REG_PORT: String(await freePort()),
    BIG_MB: '1',
  };
  const registry = `127.0.0.1:${env.REG_PORT}`;
  execFileSync('bash', [script, 'install'], { env, stdio: 'ignore' });
  execFileSync('bash', [script, 'up'], { env, stdio: 'ignore' });
  const cp = await ControlPlane.start();
  const client = KubeClient.fromString(cp.kubeconfig());
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cp.kubeconfig());
  let manager: Awaited<ReturnType<typeof startManagerProcess>>['program'] | undefined;
  let nodes: Awaited<ReturnType<typeof startTestNodes>> | undefined;
  const stop = async () => {
    await manager?.stop();
    const pods = await client.list(Resources.Pod).catch(() => ({ items: [] }));
    for (const p of pods.items)
      await client
        .delete(Resources.Pod, p.metadata!.namespace!, p.metadata!.name!, { gracePeriodSeconds: 1 })
        .catch(() => undefined);
    await eventually(async () => (await client.list(Resources.Pod)).items.length === 0, 60_000, 200).catch(
      () => undefined,
    );
    await nodes?.stop();
    await cp.stop();
    execFileSync('bash', [script, 'down'], { env, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await installKruiseApi(client);
    const started = await startManagerProcess(kubeconfig);
    manager = started.program;
    await pointWebhookService(client, started.webhookPort);
    nodes = await startTestNodes(client, {
      count: NODES,
      base: 'bench-ads',
      criStackDir: join(dir, 's'),
      registry,
    });
    return { client, registry, dir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Advanced DaemonSet: an in-place image update across 5 local nodes (real containerd each, one
 * node at a time) vs the same update by recreating the pods.
 */
export async function benchDaemonSet(): Promise<void> {
  const sys = await startNodes();
  try {
    await inPlaceVsReCreate(sys, daemonSetWorkload, NODES, `one per node on ${NODES} local nodes`);
  } finally {
    await sys.stop();
  }
}
