import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
// A relative path: vitest loads a global setup without the `source` condition the packages resolve by.
import { freePort } from '../../packages/stack/src/free-port.ts';

/**
 * Vitest global setup: installs (when missing) and starts the real runtime stack the daemon tests
 * use — a local registry with test images, containerd with CRI and Docker Engine on private sockets — and stops
 * exactly what it started when the run ends. Tests read `inject('criSocket')` and `inject('registry')`.
 */
const script = join(dirname(fileURLToPath(import.meta.url)), '../../packages/cri/scripts/cri-stack.sh');
const dir = `/tmp/kcs-${process.pid}`;

let env: NodeJS.ProcessEnv;

/**
 * Runs one step of cri-stack.sh (its stderr shown). Asynchronous on purpose: a synchronous child
 * blocks vitest's main process, whose pending timers then fire late — after a long `down`, the
 * last test file's worker (long exited, not yet reaped) was reported as "Timeout terminating
 * forks worker".
 */
function step(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, name], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`cri-stack.sh ${name} failed (${signal ?? `exit code ${code}`})`)),
    );
  });
}

export async function setup(project: TestProject): Promise<void> {
  env = { ...process.env, CRI_STACK_DIR: dir, REG_PORT: String(await freePort()), BIG_MB: '80' };
  await step('install');
  await step('install-docker');
  await step('up');
  await step('docker-up');
  project.provide('criSocket', `${dir}/containerd/containerd.sock`);
  project.provide('registry', `127.0.0.1:${env.REG_PORT}`);
  project.provide('criStackDir', dir);
  project.provide('dockerSocket', `${dir}/docker/docker.sock`);
}

export async function teardown(): Promise<void> {
  await step('down');
}

declare module 'vitest' {
  export interface ProvidedContext {
    criSocket: string;
    registry: string;
    criStackDir: string;
    dockerSocket: string;
  }
}
