import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** A control plane running as its own process, as users run it. */
export interface ControlPlaneProcess {
  kubeconfigPath: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `packages/control-plane/src/main.ts` (with `args` after its kubeconfig) and resolves once
 * it prints its ready line.
 */
export async function startControlPlaneProcess(args: string[] = []): Promise<ControlPlaneProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cp-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const child = spawn(
    process.execPath,
    [
      '--conditions=source',
      join(root, 'packages/control-plane/src/main.ts'),
      '--kubeconfig',
      kubeconfigPath,
      ...args,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`control plane exited with ${code}`)));
  });
  return {
    kubeconfigPath,
    child,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
