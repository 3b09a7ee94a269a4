import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { freePort } from '../support/free-port.ts';

/**
 * Vitest global setup: installs (when missing) and starts the real runtime stack the daemon tests
 * use — a local registry with test images, containerd with CRI and Docker Engine on private sockets — and stops
 * exactly what it started when the run ends. Tests read `inject('criSocket')` and `inject('registry')`.
 */
const script = join(dirname(fileURLToPath(import.meta.url)), '../../packages/cri/scripts/cri-stack.sh');
const dir = `/tmp/kcs-${process.pid}`;

let env: NodeJS.ProcessEnv;

export async function setup(project: TestProject): Promise<void> {
  env = { ...process.env, CRI_STACK_DIR: dir, REG_PORT: String(await freePort()), BIG_MB: '80' };
  execFileSync('bash', [script, 'install'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('bash', [script, 'install-docker'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('bash', [script, 'up'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('bash', [script, 'docker-up'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  project.provide('criSocket', `${dir}/containerd/containerd.sock`);
  project.provide('registry', `127.0.0.1:${env.REG_PORT}`);
  project.provide('criStackDir', dir);
  project.provide('dockerSocket', `${dir}/docker/docker.sock`);
}

export function teardown(): void {
  execFileSync('bash', [script, 'down'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
}

declare module 'vitest' {
  export interface ProvidedContext {
    criSocket: string;
    registry: string;
    criStackDir: string;
    dockerSocket: string;
  }
}
