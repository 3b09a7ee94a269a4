import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { freePort } from '@kruise/stack/free-port';
import type { Program } from '@kruise/stack/program';
import { startLocalNodeProcess } from '@kruise/stack/program-recipes';
import { criStackRunner } from '@kruise/stack/runtime-stack';
import { eventually } from '../support/poll.ts';
import { figure, print } from './figures.ts';
import { tagSameDigest } from './same-digest.ts';

const ROUNDS = 10;
const PODS = 100;
const LOOP = ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 0.1; done"];

const rssMB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/**
 * The local node (a process of its own on containerd): the time from a pod spec's image change to
 * the new container reported running (kubelet's in-place restart; two tags of one digest, so no
 * pull), 10 rounds; and its RSS with 100 running pods.
 */
export async function benchLocalNode(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kbench-ln-'));
  const port = await freePort();
  const stack = criStackRunner(join(dir, 's'), port);
  stack.run('install');
  stack.run('up');
  const registry = `127.0.0.1:${port}`;
  tagSameDigest(registry, ['v1-same']);
  const cp = await ControlPlane.start();
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cp.kubeconfig());
  const client = KubeClient.fromString(cp.kubeconfig());
  const programs: Program[] = [];
  const pod = (name: string, image: string) => ({
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: 'bench-node',
      terminationGracePeriodSeconds: 2,
      containers: [
        { name: 'app', image: `${registry}/${image}`, imagePullPolicy: 'IfNotPresent', command: LOOP },
      ],
    },
  });
  const app = (p: KubeObject) => p.status?.containerStatuses?.[0];
  try {
    const node = await startLocalNodeProcess(
      kubeconfig,
      'bench-node',
      `unix://${join(dir, 's/containerd/containerd.sock')}`,
    );
    programs.push(node);
    // Image change: the same pod flips between two tags of one image (both present after the first round).
    await client.create(Resources.Pod, pod('flip', 'busybox:v1'));
    await eventually(
      async () => app(await client.get(Resources.Pod, 'default', 'flip'))?.state?.running,
      60_000,
      50,
    );
    const samples: number[] = [];
    for (let r = 0; r <= ROUNDS; r++) {
      const p = await client.get(Resources.Pod, 'default', 'flip');
      const before = app(p).restartCount;
      p.spec.containers[0].image = `${registry}/busybox:${r % 2 === 0 ? 'v1-same' : 'v1'}`;
      const started = performance.now();
      await client.update(Resources.Pod, p);
      await eventually(
        async () => {
          const s = app(await client.get(Resources.Pod, 'default', 'flip'));
          return s?.restartCount === before + 1 && s.state?.running;
        },
        30_000,
        10,
      );
      // Round 0 pulls the second tag: a warm-up, not counted.
      if (r > 0) samples.push((performance.now() - started) / 1000);
    }
    figure('local-node.image-update', samples, { digits: 2 });

    const names = Array.from({ length: PODS }, (_, i) => `p-${i}`);
    await Promise.all(names.map((n) => client.create(Resources.Pod, pod(n, 'busybox:v1'))));
    await eventually(
      async () =>
        (await client.list(Resources.Pod, { namespace: 'default' })).items.filter((p) => app(p)?.ready)
          .length ===
        PODS + 1,
      300_000,
      500,
    );
    // Let status writes and the relist settle, then sample RSS three times a second apart.
    await new Promise((r) => setTimeout(r, 3000));
    const rss: number[] = [];
    for (let i = 0; i < 3; i++) {
      rss.push(rssMB(node.child.pid!));
      await new Promise((r) => setTimeout(r, 1000));
    }
    print(`  ${PODS} pods (+1) running on one local node, all ready`);
    figure('local-node.rss-100-pods', rss, {
      label: `local node RSS with ${PODS} running pods`,
      unit: 'MB',
      digits: 0,
    });
  } finally {
    const items = await client
      .list(Resources.Pod, { namespace: 'default' })
      .then((l) => l.items)
      .catch(() => []);
    await Promise.all(
      items.map((p) =>
        client
          .delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 1 })
          .catch(() => undefined),
      ),
    );
    await eventually(async () => (await client.list(Resources.Pod)).items.length === 0, 120_000, 500).catch(
      () => undefined,
    );
    for (const p of programs.reverse()) await p.stop();
    await cp.stop();
    stack.run('down');
    rmSync(dir, { recursive: true, force: true });
  }
}
