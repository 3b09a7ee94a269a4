import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeClient } from '@kruise/runtime';
import { freePort } from '@kruise/stack/free-port';
import { startKruiseSystem } from '../support/kruise-system.ts';

/**
 * A container command that runs until SIGTERM and then exits at once (grace periods cost nothing):
 * the shell waits on a background sleep, as a trap runs only once a foreground command ends.
 */
export const LOOP = ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 1 & wait $!; done"];

const script = join(dirname(fileURLToPath(import.meta.url)), '../../packages/cri/scripts/cri-stack.sh');

/** A bench's own runtime stack and Kruise processes: what a user's node and control plane run. */
export interface CriSystem {
  client: KubeClient;
  /** `host:port` of the stack's local registry (busybox:v1, busybox:v2). */
  registry: string;
  /** Its own directory (containerd's log is under `s/containerd/containerd.log`). */
  dir: string;
  /** Deletes the node's pods, stops the processes and the runtime stack, removes the directory. */
  stop(): Promise<void>;
}

/**
 * Starts a private containerd + registry (packages/cri/scripts/cri-stack.sh), then Kruise on it
 * (test/support/kruise-system.ts: the control plane, kruise-manager with its webhooks, a local node
 * named `node` with `localNodeArgs` and kruise-daemon), as the e2e tests run it on theirs.
 */
export async function startCriSystem(node: string, localNodeArgs: string[] = []): Promise<CriSystem> {
  const dir = mkdtempSync(join(tmpdir(), 'kbench-'));
  const env = {
    ...process.env,
    CRI_STACK_DIR: join(dir, 's'),
    REG_PORT: String(await freePort()),
    BIG_MB: '1',
  };
  const down = () => {
    execFileSync('bash', [script, 'down'], { env, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    execFileSync('bash', [script, 'install'], { env, stdio: 'ignore' });
    execFileSync('bash', [script, 'up'], { env, stdio: 'ignore' });
    const socket = `unix://${join(dir, 's/containerd/containerd.sock')}`;
    const kruise = await startKruiseSystem(node, socket, localNodeArgs);
    const stop = async () => {
      await kruise.stop();
      down();
    };
    return { client: kruise.client, registry: `127.0.0.1:${env.REG_PORT}`, dir, stop };
  } catch (err) {
    down();
    throw err;
  }
}
