import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KruiseResources, type NodeImage } from '@kruise/api';

import type { ControlPlane } from '@kruise/control-plane';
import type { CriClient } from '@kruise/cri/client';
import { kubeTime } from '@kruise/kube-compat';
import { EventRecorder, type KubeClient, type KubeObject, silentLogger } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ImagePuller } from '../src/imagepuller/puller.ts';
import { CriImageService } from '../src/runtime/cri-image-service.ts';
import { repoRoot, startDaemonTestEnv, until } from './env.ts';

const root = repoRoot;
const registry = inject('registry');
const stackDir = inject('criStackDir');
let cp: ControlPlane;
let client: KubeClient;
let cri: CriClient;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ cp, client, cri, stop } = await startDaemonTestEnv());
});
afterAll(() => stop());

const spec = (image: string, tag: string, backoffLimit: number) => ({
  images: {
    [image]: {
      tags: [
        {
          tag,
          version: 0,
          createdAt: kubeTime(),
          imagePullPolicy: 'Always',
          pullPolicy: { timeoutSeconds: 20, backoffLimit, ttlSecondsAfterFinished: 600 },
        },
      ],
    },
  },
});
const status = async (node: string, image: string) =>
  (await client.get<NodeImage & KubeObject>(KruiseResources.NodeImage, undefined, node)).status
    ?.imageStatuses?.[image]?.tags?.[0];

describe('faults around a pull', () => {
  it('converges after the daemon is killed mid-pull and restarted: nothing stays Pulling', async () => {
    const image = `${registry}/big`;
    await cri.removeImage(`${image}:v1`);
    await client.create(KruiseResources.NodeImage, {
      metadata: { name: 'f-restart' },
      spec: spec(image, 'v1', 2),
    });
    writeFileSync(join(stackDir, 'daemon-kubeconfig'), cp.kubeconfig());
    const startDaemon = (): ChildProcess =>
      spawn(
        process.execPath,
        [
          '--conditions=source',
          join(root, 'packages/daemon/src/main.ts'),
          '--node-name=f-restart',
          `--kubeconfig=${join(stackDir, 'daemon-kubeconfig')}`,
          `--runtime-endpoint=unix://${inject('criSocket')}`,
          '--addr=0',
          '--status-update-interval=50ms',
        ],
        { stdio: 'ignore' },
      );
    const first = startDaemon();
    await until(async () => ((await status('f-restart', image))?.phase === 'Pulling' ? true : undefined));
    const killed = new Promise((r) => first.once('exit', r));
    first.kill('SIGKILL');
    await killed;
    expect((await status('f-restart', image))?.phase).toBe('Pulling');
    const second = startDaemon();
    const done = await until(async () => {
      const s = await status('f-restart', image);
      return s?.phase === 'Succeeded' ? s : undefined;
    });
    expect(done.progress).toBe(100);
    // no pull left running in containerd (the killed daemon's PullImage ended with it or was joined)
    await until(async () => ((await cri.contentStatuses()).statuses.length === 0 ? true : undefined), 15_000);
    const ni = await client.get(KruiseResources.NodeImage, undefined, 'f-restart');
    expect(ni.status.imageStatuses[image].tags.filter((t: any) => t.tag === 'v1')).toHaveLength(1);
    const exited = new Promise((r) => second.once('exit', r));
    second.kill('SIGTERM');
    await exited;
  });

  it('retries a bounded number of times while the registry is down, reports Failed, and succeeds on a version bump once it is back', async () => {
    const pidFile = join(stackDir, 'registry/pid');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    process.kill(pid, 'SIGSTOP');
    const image = `${registry}/busybox`;
    await cri.removeImage(`${image}:v2`);
    await client.create(KruiseResources.NodeImage, {
      metadata: { name: 'f-registry' },
      spec: {
        images: {
          [image]: {
            tags: [
              {
                ...spec(image, 'v2', 1).images[image]!.tags[0]!,
                pullPolicy: { timeoutSeconds: 1, backoffLimit: 1, ttlSecondsAfterFinished: 600 },
              },
            ],
          },
        },
      },
    });
    const attempts: number[] = [];
    const images = new CriImageService(cri, 'containerd', 100);
    const counting = {
      name: images.name,
      present: images.present.bind(images),
      pull: (img: string, o: Parameters<typeof images.pull>[1]) => {
        attempts.push(Date.now());
        return images.pull(img, o);
      },
    };
    const puller = new ImagePuller({
      node: 'f-registry',
      client,
      images: counting,
      recorder: new EventRecorder(client, 'kruise-daemon-imagepuller'),
      log: silentLogger,
      maxWorkers: 0,
      maxWorkersPerRegistry: 0,
      statusUpdateIntervalMs: 50,
      backoff: { initialMs: 100, maxMs: 200 },
    });
    puller.start();
    try {
      const failed = await until(async () => {
        const s = await status('f-registry', image);
        return s?.phase === 'Failed' ? s : undefined;
      });
      expect(attempts).toHaveLength(2);
      expect(failed.message).toMatch(
        /^rpc error: code = DEADLINE_EXCEEDED|context deadline exceeded|DEADLINE/,
      );
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const ni = await client.get<NodeImage & KubeObject>(KruiseResources.NodeImage, undefined, 'f-registry');
    const tags = ni.spec!.images![image]!.tags.map((t) => ({
      ...t,
      version: 1,
      pullPolicy: { ...t.pullPolicy, timeoutSeconds: 20 },
    }));
    await client.update(KruiseResources.NodeImage, { ...ni, spec: { images: { [image]: { tags } } } });
    const ok = await until(async () => {
      const s = await status('f-registry', image);
      return s?.phase === 'Succeeded' && s.version === 1 ? s : undefined;
    });
    expect(ok.imageID).toContain('sha256:');
    await puller.stop();
  });
});
