import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeClient } from '@kruise/runtime';
import type { ManagerApp } from '../../packages/manager/src/index.ts';
import { eventually } from '../support/poll.ts';
import { buildPackage } from './build.ts';
import { podWatch } from './pod-watch.ts';
import { BENCH_POD_SPEC, type BenchWorkload } from './workloads.ts';

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

/**
 * kruise-manager's RSS (MB, one sample per process, `rounds` processes one after another) with
 * `sets` workloads of `replicas` pods each cached: creates them through the in-process manager
 * `app`, waits until a watch shows every pod, stops `app`, then measures `managerProcessRss`. Each
 * process runs 35 s first: the pods seen at start queue their workload with a 3 s → 30 s backoff.
 */
export async function managerRssWithPods(
  kubeconfigPath: string,
  client: KubeClient,
  app: ManagerApp,
  workload: BenchWorkload,
  { sets, replicas, rounds, flags }: { sets: string[]; replicas: number; rounds: number; flags: string[] },
): Promise<number[]> {
  for (const n of sets)
    await client.create(workload.resource, workload.manifest(n, replicas, BENCH_POD_SPEC));
  for (const n of sets) {
    const watch = podWatch(client, `app=${n}`, 600_000);
    await watch.start();
    try {
      await watch.reach(replicas);
    } finally {
      await watch.stop();
    }
  }
  await app.stop();
  const rss: number[] = [];
  for (let round = 0; round < rounds; round++)
    rss.push(await managerProcessRss(kubeconfigPath, flags, 35_000));
  return rss;
}
