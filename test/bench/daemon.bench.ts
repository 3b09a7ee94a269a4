import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KruiseResources } from '@kruise/api';
import { ControlPlane } from '@kruise/control-plane';
import { CriClient } from '@kruise/cri/client';
import { kubeTime } from '@kruise/kube-compat';
import { EventRecorder, KubeClient, Resources, silentLogger } from '@kruise/runtime';
import { freePort } from '@kruise/stack/free-port';
import { parse } from 'yaml';
import { ImagePuller } from '../../packages/daemon/src/imagepuller/puller.ts';
import { CriImageService } from '../../packages/daemon/src/runtime/cri-image-service.ts';
import { eventually } from '../support/poll.ts';
import { buildPackage } from './build.ts';
import { DaemonProcess } from './daemon-process.ts';
import { figure, print, sideBySide } from './figures.ts';
import { formatWaits, untilQuiet } from './quiet.ts';
import { pushSmallImages } from './small-images.ts';
import { median } from './stats.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const script = join(root, 'packages/cri/scripts/cri-stack.sh');
/** Rounds of the side-by-side pull (order alternating) and of the footprint (a fresh daemon each). */
const PULL_ROUNDS = 15;
const FOOTPRINT_ROUNDS = 3;
const PODS = 100;
const SMALL_IMAGES = 50;

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

/**
 * The daemon's RSS once it is at rest: sampled each second until it has not changed for three
 * seconds (V8's memory reducer collects and shrinks an idle heap within seconds), 30 s at most.
 */
async function rssAtRest(daemon: DaemonProcess): Promise<number> {
  let last = daemon.rssMB();
  let steady = 0;
  for (let i = 0; i < 30 && steady < 3; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = daemon.rssMB();
    steady = Math.abs(now - last) < 0.5 ? steady + 1 : 0;
    last = now;
  }
  return last;
}

/** kruise-daemon, the real process: cold pull vs direct CRI, footprint after 50 pulls; the worker cap. */
export async function benchDaemon(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kbench-'));
  // containerd and the registry keep their data in memory: what the pull figures compare is the two
  // paths to the same runtime, and this VM's disk adds ±20 % to any pull (in runs of slow and fast
  // pulls), which would hide a 2 % difference.
  const memory = join(dir, 'mem');
  mkdirSync(memory);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4g', 'kbench', memory]);
  const base = join(memory, 's');
  const env = {
    ...process.env,
    CRI_STACK_DIR: base,
    REG_PORT: String(await freePort()),
    BIG_MB: '80',
  };
  try {
    execFileSync('bash', [script, 'install'], { env, stdio: 'ignore' });
    execFileSync('bash', [script, 'up'], { env, stdio: 'ignore' });
  } catch (err) {
    execFileSync('bash', [script, 'down'], { env, stdio: 'ignore' });
    execFileSync('umount', [memory]);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const socket = join(base, 'containerd/containerd.sock');
  const registry = `127.0.0.1:${env.REG_PORT}`;
  const cp = await ControlPlane.start();
  const client = KubeClient.fromString(cp.kubeconfig());
  const cri = new CriClient(socket);
  const daemons: DaemonProcess[] = [];
  try {
    for (const file of readdirSync(join(root, 'deploy/crds'))) {
      await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body: parse(readFileSync(join(root, 'deploy/crds', file), 'utf8')),
      });
    }
    buildPackage('daemon');
    writeFileSync(join(dir, 'kubeconfig'), cp.kubeconfig());
    const startDaemon = async (node: string) => {
      const d = await DaemonProcess.start(root, [
        `--node-name=${node}`,
        `--kubeconfig=${join(dir, 'kubeconfig')}`,
        `--runtime-endpoint=unix://${socket}`,
        '--addr=127.0.0.1:0',
      ]);
      daemons.push(d);
      return d;
    };

    // Cold pull of big:v1 (80 MiB): direct CRI PullImage vs through the kruise-daemon process
    // (NodeImage spec write -> the daemon logs the image pulled, by its log line's time), order
    // alternating each round.
    const big = `${registry}/big`;
    await client.create(KruiseResources.NodeImage, { metadata: { name: 'pull' }, spec: {} });
    const puller = await startDaemon('pull');
    // Cold means cold: the image is removed and containerd's garbage collection has removed its
    // content blobs and unpacked snapshots (a pull that finds a blob left over skips its download).
    const store = join(base, 'containerd/root');
    /** A directory's entries (none while containerd has not made it yet). */
    const entries = (path: string) => (existsSync(path) ? readdirSync(path) : []);
    const blobs = () => new Set(entries(join(store, 'io.containerd.content.v1.content/blobs/sha256')));
    const snapshots = () =>
      new Set(
        entries(store)
          .filter((d) => d.startsWith('io.containerd.snapshotter.v1.'))
          .flatMap((d) => entries(join(store, d, 'snapshots')).map((s) => `${d}/${s}`)),
      );
    await cri.removeImage(`${big}:v1`);
    const baseline = { blobs: blobs(), snapshots: snapshots() };
    const within = (now: Set<string>, base: Set<string>) => [...now].every((x) => base.has(x));
    const cold = async () => {
      await cri.removeImage(`${big}:v1`);
      await eventually(
        () => within(blobs(), baseline.blobs) && within(snapshots(), baseline.snapshots),
        30_000,
        20,
      );
      // The pull before left ~160 MB of dirty pages (blob and unpacked layer): written out now, not
      // during the next pull (which every other pull paid for, 0.55 s vs 0.8 s, whichever side it was).
      execFileSync('sync');
    };
    const waited: number[] = [];
    const times = await sideBySide(
      PULL_ROUNDS,
      {
        'direct CRI': async () => {
          const t = performance.now();
          await cri.pullImage(`${big}:v1`, {}, { timeoutMs: 120_000 });
          return performance.now() - t;
        },
        'kruise-daemon': async (round) => {
          const ni = await client.get(KruiseResources.NodeImage, undefined, 'pull');
          const pulled = puller.logged((l) => l.msg === 'image pulled' && l.image === `${big}:v1`);
          // until the daemon logged the pull (its own clock, this machine's): when its line reaches
          // this process through the pipe is not the daemon's time
          const t = Date.now();
          await client.update(KruiseResources.NodeImage, {
            ...ni,
            spec: { images: { [big]: { tags: [tagSpec('v1', round + 1)] } } },
          });
          const logged = Date.parse((await pulled).time ?? '');
          if (Number.isNaN(logged)) throw new Error('the daemon logged no time');
          return logged - t;
        },
      },
      {
        warmup: 1,
        before: async () => {
          await cold();
          waited.push(await untilQuiet());
        },
      },
    );
    print(
      `  each pull cold (no blob or snapshot left) and started once the machine was quiet, after ${formatWaits(waited)} s`,
    );
    const direct = times['direct CRI'];
    const viaDaemon = times['kruise-daemon'];
    figure('daemon.pull-direct', direct, {
      label: 'cold pull of big:v1 (80 MiB), direct CRI PullImage',
      unit: 'ms',
      digits: 0,
    });
    figure('daemon.pull-via-daemon', viaDaemon, {
      label: 'cold pull of big:v1 through the kruise-daemon process (spec write -> image pulled)',
      unit: 'ms',
      digits: 0,
    });
    figure(
      'daemon.pull-ratio-per-round',
      viaDaemon.map((v, i) => v / direct[i]!),
      {
        label: 'per round: cold pull through kruise-daemon / direct CRI PullImage (each pull varies ±5 %)',
        unit: 'x',
        digits: 3,
      },
    );
    // The goal's figure: the two medians' ratio, which each pull's own variation moves far less
    // than it moves the ratio of two single pulls.
    figure('daemon.pull-ratio', [median(viaDaemon) / median(direct)], { digits: 3 });
    await puller.stop();

    // Worker cap: 21 tags, --max-workers-for-pull-image 5; PullImage calls in flight counted at the CRI
    // client and, at the runtime, from containerd's own log of each PullImage start and end.
    const containerdLog = join(base, 'containerd/containerd.log');
    const logOffset = statSync(containerdLog).size;
    const images = new CriImageService(cri, 'containerd', 2000);
    let inFlight = 0;
    let peak = 0;
    const counting = hooked(
      images,
      () => (peak = Math.max(peak, ++inFlight)),
      () => inFlight--,
    );
    const tags = Array.from({ length: 20 }, (_, i) => tagSpec(`missing-${i}`));
    await client.create(KruiseResources.NodeImage, {
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
    figure('daemon.cap-at-client', [peak], {
      label: `worker cap 5, 21 tags: PullImage calls in flight at the CRI client (containerd logged ${atRuntime.pulls} calls)`,
      digits: 0,
    });
    figure('daemon.cap-at-containerd', [atRuntime.peak], {
      label: 'worker cap 5, 21 tags: PullImage calls in flight in containerd (its log)',
      digits: 0,
    });

    // Footprint of the real process: 50 small distinct images pulled (each its own layer, really
    // downloaded and unpacked) with 100 pods of a Kruise workload on the node; a fresh daemon and
    // cold images each round.
    const small = pushSmallImages(registry, join(dir, 'small'), SMALL_IMAGES);
    const rss: number[] = [];
    const rssAfter2s: number[] = [];
    const rssAtStart: number[] = [];
    const cpu: number[] = [];
    for (let round = 0; round < FOOTPRINT_ROUNDS; round++) {
      const node = `footprint-${round}`;
      for (const ref of small) await cri.removeImage(ref);
      for (let i = 0; i < PODS; i++)
        await client.create(Resources.Pod, {
          metadata: {
            name: `${node}-p${i}`,
            namespace: 'default',
            ownerReferences: [
              {
                apiVersion: 'apps.kruise.io/v1alpha1',
                kind: 'CloneSet',
                name: `${node}-set`,
                uid: `uid-${node}-set`,
                controller: true,
              },
            ],
          },
          spec: { nodeName: node, containers: [{ name: 'c', image: `${registry}/busybox:v1` }] },
        });
      await client.create(KruiseResources.NodeImage, {
        metadata: { name: node },
        spec: {
          images: Object.fromEntries(
            small.map((ref) => [ref.slice(0, ref.lastIndexOf(':')), { tags: [tagSpec('v1')] }]),
          ),
        },
      });
      const daemon = await startDaemon(node);
      rssAtStart.push(daemon.rssMB());
      await eventually(
        async () =>
          (await client.get(KruiseResources.NodeImage, undefined, node)).status?.succeeded === SMALL_IMAGES,
        180_000,
        250,
      );
      await new Promise((r) => setTimeout(r, 2000));
      rssAfter2s.push(daemon.rssMB());
      cpu.push(daemon.cpuMs());
      rss.push(await rssAtRest(daemon));
      await daemon.stop();
    }
    const what = `${SMALL_IMAGES} small images pulled, ${PODS} pods on the node`;
    figure('daemon.rss', rss, { digits: 0 });
    figure('daemon.rss-2s-after', rssAfter2s, {
      label: `kruise-daemon RSS 2 s after the last pull (V8 may not have collected the pulls' garbage yet), ${PODS} pods on the node`,
      unit: 'MB',
      digits: 0,
    });
    figure('daemon.rss-at-start', rssAtStart, {
      label: `kruise-daemon RSS (built JS, Dockerfile.daemon's node flags) at start, ${PODS} pods on the node`,
      unit: 'MB',
      digits: 0,
    });
    figure('daemon.cpu', cpu, {
      label: `kruise-daemon CPU from start to ${what}`,
      unit: 'ms',
      digits: 0,
    });
  } finally {
    for (const d of daemons) await d.stop();
    cri.close();
    await cp.stop();
    execFileSync('bash', [script, 'down'], { env, stdio: 'ignore' });
    execFileSync('umount', [memory]);
    rmSync(dir, { recursive: true, force: true });
  }
}
