import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually } from '../support/poll.ts';
import { buildPackage } from './build.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * kruise-manager's RSS (MB) as shipped — the compiled JavaScript, the Dockerfile's form, its own
 * process — once it has started and then run `settleMs` more; the process is stopped after.
 */
export async function managerProcessRss(
  kubeconfigPath: string,
  flags: string[],
  settleMs: number,
): Promise<number> {
  buildPackage('manager');
  const child = spawn(
    process.execPath,
    [join(root, 'packages/manager/dist/main.js'), `--kubeconfig=${kubeconfigPath}`, ...flags],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LOG_LEVEL: 'info' } },
  );
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  await eventually(() => out.includes('kruise-manager started'), 120_000, 20);
  await new Promise((r) => setTimeout(r, settleMs));
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return rss;
}
