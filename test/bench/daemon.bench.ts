import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubeTime } from '@kruise/api';
import { ControlPlane } from '@kruise/control-plane';
import { CriClient } from '@kruise/cri/client';
import { EventRecorder, KubeClient, Resources, silentLogger } from '@kruise/runtime';
import { parse } from 'yaml';
import { ImagePuller } from '../../packages/daemon/src/imagepuller/puller.ts';
import { CriImageService } from '../../packages/daemon/src/runtime/cri-image-service.ts';
import { freePort } from '../support/free-port.ts';
import { eventually } from '../support/poll.ts';
import { buildPackage } from './build.ts';
import { fmt, median } from './stats.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const script = join(root, 'packages/cri/scripts/cri-stack.sh');
const ROUNDS = 9;
/** Extra V8 flags for the measured daemon (env DAEMON_NODE_FLAGS; none by default). */
const DAEMON_NODE_FLAGS = (process.env.DAEMON_NODE_FLAGS ?? '').split(' ').filter(Boolean);

const tagSpec = (tag: string, version = 0) => ({
  tag,
  version,
  createdAt: kubeTime(),
  imagePullPolicy: 'Always',
  pullPolicy: { timeoutSeconds: 60, backoffLimit: 0, ttlSecondsAfterFinished: 600 },
});

/** Waits for `check`, polling every 10 ms (pull timings are measured through it). */
const until = (check: () => Promise<boolean>, timeoutMs = 60_000) => eventually(check, timeoutMs, 10);

/** `images` with `before` run as each pull starts and `after` as it settles. */
function hooked(images: CriImageService, before: () => void, after: () => void) {
  return {
    name: images.name,
    present: images.present.bind(images),
    pull: async (image: string, options: Parameters<CriImageService['pull']>[1]) => {
      before();
      try {
        return await images.pull(image, options);
      } finally {
        after();
      }
    },
  };
}

/**
 * The most PullImage calls containerd had in flight at once, from its log: each call logs
 * `PullImage "ref"` when it starts and `PullImage "ref" returns …` or `… failed` when it ends.
 */
function peakPullsInLog(text: string): { peak: number; pulls: number } {
  let inFlight = 0;
  let peak = 0;
  let pulls = 0;
  for (const m of text.matchAll(/msg="PullImage \\"[^"\\]*\\"([^"]*)"/g)) {
    if (m[1] === '') {
      pulls++;
      peak = Math.max(peak, ++inFlight);
    } else inFlight--;
  }
  return { peak, pulls };
}

/** kruise-daemon: cold pull vs direct CRI, the worker cap, and RSS. */
export async function benchDaemon(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kbench-'));
  const env = {
    ...process.env,
    CRI_STACK_DIR: join(dir, 's'),
    REG_PORT: String(await freePort()),
    BIG_MB: '80',
  };
  execFileSync('bash', [script, 'install'], { env, stdio: 'ignore' });
  execFileSync('bash', [script, 'up'], { env, stdio: 'ignore' });
  const socket = join(dir, 's/containerd/containerd.sock');
  const registry = `127.0.0.1:${env.REG_PORT}`;
  const cp = await ControlPlane.start();
  const client = KubeClient.fromString(cp.kubeconfig());
  const cri = new CriClient(socket);
  let child: ChildProcess | undefined;
  try {
    for (const file of readdirSync(join(root, 'deploy/crds'))) {
      await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body: parse(readFileSync(join(root, 'deploy/crds', file), 'utf8')),
      });
    }
    const big = `${registry}/big`;
    // Cold pull of big:v1: direct CRI PullImage vs through the daemon's puller (NodeImage -> status Succeeded).
    const direct: number[] = [];
    const viaDaemon: number[] = [];
    // When the puller calls PullImage: spec write -> that call is the daemon's own share of a pull.
    const benchImages = new CriImageService(cri, 'containerd', 100);
    let pullCalledAt = 0;
    let pullReturnedAt = 0;
    const timed = hooked(
      benchImages,
      () => (pullCalledAt = performance.now()),
      () => (pullReturnedAt = performance.now()),
    );
    const dispatch: number[] = [];
    const inPull: number[] = [];
    const puller = new ImagePuller({
      node: 'bench',
      client,
      images: timed,
      recorder: new EventRecorder(client, 'bench'),
      log: silentLogger,
      maxWorkers: 0,
      maxWorkersPerRegistry: 0,
      statusUpdateIntervalMs: 2000,
    });
    await client.create(Resources.NodeImage, { metadata: { name: 'bench' }, spec: {} });
    puller.start();
    for (let round = 0; round < ROUNDS; round++) {
      await cri.removeImage(`${big}:v1`);
      await new Promise((r) => setTimeout(r, 300));
      let t = performance.now();
      await cri.pullImage(`${big}:v1`, {}, { timeoutMs: 120_000 });
      direct.push(performance.now() - t);
      await cri.removeImage(`${big}:v1`);
      await new Promise((r) => setTimeout(r, 300));
      const ni = await client.get(Resources.NodeImage, undefined, 'bench');
      t = performance.now();
      await client.update(Resources.NodeImage, {
        ...ni,
        spec: { images: { [big]: { tags: [tagSpec('v1', round)] } } },
      });
      await until(
        async () => puller.activeWorkers === 0 && (await cri.imageStatus(`${big}:v1`)).image !== null,
      );
      viaDaemon.push(performance.now() - t);
      dispatch.push(pullCalledAt - t);
      inPull.push(pullReturnedAt - pullCalledAt);
    }
    await puller.stop();
    const ratio = median(viaDaemon) / median(direct);
    console.log(
      `cold pull of big:v1 (80 MiB), ${ROUNDS} rounds: direct CRI PullImage median ${fmt(median(direct), 0)} ms [${direct.map((x) => fmt(x, 0)).join(', ')}]; through the daemon (spec write -> image on the node) median ${fmt(median(viaDaemon), 0)} ms [${viaDaemon.map((x) => fmt(x, 0)).join(', ')}]; ratio ${fmt(ratio, 2)} (goal <= 1.05)`,
    );
    console.log(
      `  of which: spec write -> the daemon's PullImage call median ${fmt(median(dispatch), 1)} ms [${dispatch.map((x) => fmt(x, 1)).join(', ')}]; its PullImage call median ${fmt(median(inPull), 0)} ms [${inPull.map((x) => fmt(x, 0)).join(', ')}]`,
    );

    // Worker cap: 21 tags, --max-workers-for-pull-image 5; PullImage calls in flight counted at the CRI
    // client and, at the runtime, from containerd's own log of each PullImage start and end.
    const containerdLog = join(dir, 's/containerd/containerd.log');
    const logOffset = statSync(containerdLog).size;
    const images = new CriImageService(cri, 'containerd', 100);
    let inFlight = 0;
    let peak = 0;
    const counting = hooked(
      images,
      () => (peak = Math.max(peak, ++inFlight)),
      () => inFlight--,
    );
    const tags = Array.from({ length: 20 }, (_, i) => tagSpec(`missing-${i}`));
    await client.create(Resources.NodeImage, {
      metadata: { name: 'capped' },
      spec: {
        images: {
          [`${registry}/busybox`]: { tags: [tagSpec('v1')] },
          [`${registry}/cap`]: { tags },
        },
      },
    });
    const capped = new ImagePuller({
      node: 'capped',
      client,
      images: counting,
      recorder: new EventRecorder(client, 'bench'),
      log: silentLogger,
      maxWorkers: 5,
      maxWorkersPerRegistry: 0,
      statusUpdateIntervalMs: 500,
    });
    capped.start();
    await until(async () => capped.hasSynced() && capped.activeWorkers === 0, 120_000);
    await capped.stop();
    const atRuntime = peakPullsInLog(readFileSync(containerdLog).subarray(logOffset).toString('utf8'));
    console.log(
      `worker cap: 21 distinct tags (20 absent from the registry) with --max-workers-for-pull-image 5: at most ${peak} PullImage calls in flight at the CRI client, ${atRuntime.peak} in containerd (its log: ${atRuntime.pulls} PullImage calls) (goal <= 5)`,
    );

    // RSS of the built daemon with 50 tags in its NodeImage and 100 pods bound to the node.
    buildPackage('daemon');
    writeFileSync(join(dir, 'kubeconfig'), cp.kubeconfig());
    /** Starts the built daemon for `node` with `flags`, lets it pull 50 tags; RSS and CPU it used. */
    const measure = async (node: string, flags: string[]) => {
      await client.create(Resources.NodeImage, {
        metadata: { name: node },
        spec: {
          images: Object.fromEntries(
            Array.from({ length: 50 }, (_, i) => [`${registry}/img${i}`, { tags: [tagSpec('v1')] }]),
          ),
        },
      });
      for (let i = 0; i < 100; i++)
        await client.create(Resources.Pod, {
          metadata: { name: `${node}-p${i}`, namespace: 'default' },
          spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }] },
        });
      child = spawn(
        process.execPath,
        [
          ...flags,
          join(root, 'packages/daemon/dist/main.js'),
          `--node-name=${node}`,
          `--kubeconfig=${join(dir, 'kubeconfig')}`,
          `--runtime-endpoint=unix://${socket}`,
          '--addr=127.0.0.1:0',
        ],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
          env: { ...process.env, KRUISE_PROTO_DIR: join(root, 'proto') },
        },
      );
      let out = '';
      child.stdout!.on('data', (c) => (out += c));
      await until(async () => out.includes('kruise-daemon started'));
      const proc = (file: string) => readFileSync(`/proc/${child!.pid}/${file}`, 'utf8');
      const rssOf = () => Number(/VmRSS:\s+(\d+)/.exec(proc('status'))![1]) / 1024;
      const atStart = rssOf();
      await until(
        async () => ((await client.get(Resources.NodeImage, undefined, node)).status?.failed ?? 0) === 50,
        120_000,
      );
      await new Promise((r) => setTimeout(r, 2000));
      const rss = rssOf();
      // utime and stime, fields 14 and 15 of /proc/PID/stat, in clock ticks of 10 ms.
      const stat = proc('stat')
        .slice(proc('stat').lastIndexOf(')') + 2)
        .split(' ');
      const cpuMs = (Number(stat[11]) + Number(stat[12])) * 10;
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      return { rss, atStart, cpuMs };
    };
    const plain = await measure('rss-node', DAEMON_NODE_FLAGS);
    const jitless = await measure('rss-jitless', [...DAEMON_NODE_FLAGS, '--jitless']);
    for (const [label, m] of [
      [`node ${DAEMON_NODE_FLAGS.join(' ')}`.trim(), plain],
      [`node ${[...DAEMON_NODE_FLAGS, '--jitless'].join(' ')}`, jitless],
    ] as const)
      console.log(
        `daemon RSS (built JS, ${label}) with 50 images in its NodeImage and 100 pods on the node: ${fmt(m.rss, 0)} MB after the pulls, ${fmt(m.atStart, 0)} MB at start (goal <= 80 MB); CPU ${fmt(m.cpuMs, 0)} ms from start to 50 pulls done`,
      );
    console.log(
      `daemon --jitless vs default: RSS ratio ${fmt(jitless.rss / plain.rss, 2)}, CPU ratio ${fmt(jitless.cpuMs / plain.cpuMs, 2)}`,
    );
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    cri.close();
    await cp.stop();
    execFileSync('bash', [script, 'down'], { env, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
}
