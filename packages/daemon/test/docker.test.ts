import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KruiseResources, type NodeImage } from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import { EventRecorder, type KubeClient, type KubeObject, silentLogger } from '@kruise/runtime';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chooseImageService } from '../src/app.ts';
import { discoverRuntime } from '../src/cri/discovery.ts';
import { ImagePuller } from '../src/imagepuller/puller.ts';
import { DockerImageService } from '../src/runtime/docker-image-service.ts';
import { startDaemonTestEnv, until } from './env.ts';

const registry = inject('registry');
let client: KubeClient;
let stop: () => Promise<void>;
const docker = new Docker({ socketPath: inject('dockerSocket') });

beforeAll(async () => {
  ({ client, stop } = await startDaemonTestEnv());
});
afterAll(() => stop());

const tag = (t: string) => ({
  tag: t,
  version: 0,
  createdAt: kubeTime(),
  imagePullPolicy: 'Always',
  pullPolicy: { timeoutSeconds: 60, backoffLimit: 0, ttlSecondsAfterFinished: 600 },
});

async function pull(node: string, image: string) {
  await client.create(KruiseResources.NodeImage, {
    metadata: { name: node },
    spec: { images: { [image]: { tags: [tag('v1')] } } },
  });
  const seen = new Set<number>();
  const puller = new ImagePuller({
    node,
    client,
    images: new DockerImageService(docker),
    recorder: new EventRecorder(client, 'kruise-daemon-imagepuller'),
    log: silentLogger,
    maxWorkers: 0,
    maxWorkersPerRegistry: 0,
    statusUpdateIntervalMs: 30,
  });
  puller.start();
  const watcher = setInterval(async () => {
    const s = (
      await client
        .get<NodeImage & KubeObject>(KruiseResources.NodeImage, undefined, node)
        .catch(() => undefined)
    )?.status?.imageStatuses?.[image]?.tags?.[0];
    if (s?.phase === 'Pulling' && s.progress !== undefined) seen.add(s.progress);
  }, 15);
  const done = await until(async () => {
    const s = (await client.get<NodeImage & KubeObject>(KruiseResources.NodeImage, undefined, node)).status
      ?.imageStatuses?.[image]?.tags?.[0];
    return s?.phase === 'Succeeded' || s?.phase === 'Failed' ? s : undefined;
  }, 60_000);
  clearInterval(watcher);
  await puller.stop();
  return { done, seen };
}

describe('pulling through Docker Engine (dockerode)', () => {
  it('pulls with per-layer progress and reports the engine image ID', async () => {
    const image = `${registry}/big2`;
    await docker
      .getImage(`${image}:v1`)
      .remove()
      .catch(() => undefined);
    const { done, seen } = await pull('docker-ok', image);
    expect(done.phase).toBe('Succeeded');
    const info = await docker.getImage(`${image}:v1`).inspect();
    expect(done.imageID).toBe(`${image}@${info.Id}`);
    expect([...seen].some((p) => p > 0 && p < 100)).toBe(true);
  });

  it('reports the engine message for a missing image', async () => {
    const { done } = await pull('docker-missing', `${registry}/absent`);
    expect(done.phase).toBe('Failed');
    expect(done.message).toContain('manifest unknown');
  });
});

describe('choosing the image service', () => {
  const hostRunDir = mkdtempSync(join(tmpdir(), 'hostvarrun-'));
  afterAll(() => rmSync(hostRunDir, { recursive: true, force: true }));

  it('uses Docker Engine when the CRI socket found is cri-dockerd and docker.sock is beside it', async () => {
    // cri-dockerd is not packaged for Debian: a real CRI runtime answers at cri-dockerd's path.
    symlinkSync(inject('criSocket'), join(hostRunDir, 'cri-dockerd.sock'));
    const runtime = await discoverRuntime({ hostRunDir, timeoutMs: 2000 });
    expect(runtime.endpoint).toBe(`unix://${join(hostRunDir, 'cri-dockerd.sock')}`);
    try {
      expect((await chooseImageService(runtime, { hostRunDir }, silentLogger)).name).not.toBe('docker');
      symlinkSync(inject('dockerSocket'), join(hostRunDir, 'docker.sock'));
      expect((await chooseImageService(runtime, { hostRunDir }, silentLogger)).name).toBe('docker');
    } finally {
      runtime.client.close();
    }
  });

  it('uses Docker Engine for --docker-endpoint and CRI for containerd otherwise', async () => {
    const runtime = await discoverRuntime({ endpoint: `unix://${inject('criSocket')}` });
    try {
      const options = { hostRunDir };
      expect((await chooseImageService(runtime, options, silentLogger)).name).toBe('containerd');
      const viaFlag = { ...options, dockerEndpoint: `unix://${inject('dockerSocket')}` };
      expect((await chooseImageService(runtime, viaFlag, silentLogger)).name).toBe('docker');
    } finally {
      runtime.client.close();
    }
  });
});
