import { KruiseResources, type NodeImage } from '@kruise/api';

import type { CriClient } from '@kruise/cri/client';
import { kubeTime } from '@kruise/kube-compat';
import { EventRecorder, type KubeClient, type KubeObject, Resources, silentLogger } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ImagePuller } from '../src/imagepuller/puller.ts';
import { CriImageService } from '../src/runtime/cri-image-service.ts';
import { startDaemonTestEnv, until } from './env.ts';

const registry = inject('registry');
let client: KubeClient;
let cri: CriClient;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, cri, stop } = await startDaemonTestEnv());
});
afterAll(() => stop());

const now = () => kubeTime();
const tag = (t: string, version = 0, policy: Record<string, number> = {}) => ({
  tag: t,
  version,
  createdAt: now(),
  imagePullPolicy: 'Always',
  pullPolicy: { timeoutSeconds: 30, backoffLimit: 1, ttlSecondsAfterFinished: 3600, ...policy },
});

async function startPuller(
  node: string,
  images: Record<string, unknown>,
  extra: Partial<ConstructorParameters<typeof ImagePuller>[0]> = {},
) {
  await client.create(KruiseResources.NodeImage, { metadata: { name: node }, spec: { images } });
  const puller = new ImagePuller({
    node,
    client,
    images: new CriImageService(cri, 'containerd', 50),
    recorder: new EventRecorder(client, 'kruise-daemon-imagepuller'),
    log: silentLogger,
    maxWorkers: 0,
    maxWorkersPerRegistry: 0,
    statusUpdateIntervalMs: 100,
    backoff: { initialMs: 50, maxMs: 200 },
    ...extra,
  });
  puller.start();
  return puller;
}

const nodeImage = (n: string) => client.get<NodeImage & KubeObject>(KruiseResources.NodeImage, undefined, n);
const tagStatus = async (n: string, image: string, t: string) =>
  (await nodeImage(n)).status?.imageStatuses?.[image]?.tags?.find((s) => s.tag === t);

describe('ImagePuller on containerd', () => {
  it('pulls a tag and reports Succeeded with the image ID the runtime has', async () => {
    const image = `${registry}/busybox`;
    await cri.removeImage(`${image}:v1`);
    const puller = await startPuller('p-ok', { [image]: { tags: [tag('v1')] } });
    const done = await until(async () => {
      const s = await tagStatus('p-ok', image, 'v1');
      return s?.phase === 'Succeeded' ? s : undefined;
    });
    const runtime = await cri.imageStatus(`${image}:v1`);
    expect(done).toMatchObject({ progress: 100, version: 0, imageID: `${image}@${runtime.image?.id}` });
    expect((await nodeImage('p-ok')).status).toMatchObject({
      desired: 1,
      succeeded: 1,
      failed: 0,
      pulling: 0,
    });
    await puller.stop();
  });

  it('reports rising progress while a large image is pulled', async () => {
    const image = `${registry}/big2`;
    await cri.removeImage(`${image}:v1`);
    const seen = new Set<number>();
    const watcher = setInterval(async () => {
      const s = await tagStatus('p-big', image, 'v1').catch(() => undefined);
      if (s?.phase === 'Pulling' && s.progress !== undefined) seen.add(s.progress);
    }, 20);
    const puller = await startPuller(
      'p-big',
      { [image]: { tags: [tag('v1')] } },
      { images: new CriImageService(cri, 'containerd', 25), statusUpdateIntervalMs: 50 },
    );
    await until(
      async () => ((await tagStatus('p-big', image, 'v1'))?.phase === 'Succeeded' ? true : undefined),
      60_000,
    );
    clearInterval(watcher);
    expect([...seen].some((p) => p > 0 && p < 100)).toBe(true);
    await puller.stop();
  });

  it('fails a missing image after backoffLimit + 1 attempts with the runtime message and an event', async () => {
    const image = `${registry}/missing`;
    const service = inFlightCounter();
    const owner = {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'ImagePullJob',
      name: 'job-missing',
      namespace: 'default',
      uid: 'uid-job-missing',
    };
    const puller = await startPuller(
      'p-missing',
      { [image]: { tags: [{ ...tag('v1', 0, { backoffLimit: 2 }), ownerReferences: [owner] }] } },
      { images: service },
    );
    const failed = await until(async () => {
      const s = await tagStatus('p-missing', image, 'v1');
      return s?.phase === 'Failed' ? s : undefined;
    });
    expect(service.calls).toBe(3);
    expect(failed.message).toMatch(/^rpc error: code = NOT_FOUND desc = failed to pull and unpack image/);
    expect((await nodeImage('p-missing')).status?.failed).toBe(1);
    const onJob = await until(async () => {
      const list = (
        await client.list(Resources.Event, {
          namespace: 'default',
          fieldSelector: 'involvedObject.name=job-missing',
        })
      ).items;
      return list.length ? list : undefined;
    });
    expect(onJob[0]).toMatchObject({
      reason: 'PullImageFailed',
      type: 'Warning',
      message: `Failed to pull image ${image}:v1: ${failed.message}`,
    });
    await puller.stop();
  });

  it('stops a worker when its tag leaves the spec, and pulls again on a version bump', async () => {
    const image = `${registry}/busybox`;
    const puller = await startPuller('p-change', { [image]: { tags: [tag('v2')] } });
    await until(async () =>
      (await tagStatus('p-change', image, 'v2'))?.phase === 'Succeeded' ? true : undefined,
    );
    const ni = await nodeImage('p-change');
    await client.update(KruiseResources.NodeImage, {
      ...ni,
      spec: { images: { [image]: { tags: [tag('v2', 1)] } } },
    });
    const again = await until(async () => {
      const s = await tagStatus('p-change', image, 'v2');
      return s?.version === 1 && s.phase === 'Succeeded' ? s : undefined;
    });
    expect(again.version).toBe(1);
    const ni2 = await nodeImage('p-change');
    await client.update(KruiseResources.NodeImage, { ...ni2, spec: { images: {} } });
    await until(async () => ((await nodeImage('p-change')).status?.desired === 0 ? true : undefined));
    expect((await nodeImage('p-change')).status?.imageStatuses).toBeUndefined();
    expect(puller.activeWorkers).toBe(0);
    await puller.stop();
  });

  it('skips the pull for IfNotPresent when the runtime has the image, and records events', async () => {
    const image = `${registry}/busybox`;
    await cri.pullImage(`${image}:v1`);
    const service = new CriImageService(cri, 'containerd', 100);
    let pulls = 0;
    const counting = {
      name: service.name,
      present: service.present.bind(service),
      pull: (i: string, o: Parameters<typeof service.pull>[1]) => {
        pulls++;
        return service.pull(i, o);
      },
    };
    const puller = await startPuller(
      'p-present',
      { [image]: { tags: [{ ...tag('v1'), imagePullPolicy: 'IfNotPresent' }] } },
      { images: counting },
    );
    const done = await until(async () => {
      const s = await tagStatus('p-present', image, 'v1');
      return s?.phase === 'Succeeded' ? s : undefined;
    });
    expect(pulls).toBe(0);
    expect(done.imageID).toBe(`${image}@${(await cri.imageStatus(`${image}:v1`)).image?.id}`);
    const events = await until(async () => {
      const list = (
        await client.list(Resources.Event, {
          namespace: 'default',
          fieldSelector: 'involvedObject.name=p-present',
        })
      ).items;
      return list.length ? list : undefined;
    });
    expect(events[0]).toMatchObject({
      reason: 'PullImageSucceed',
      type: 'Normal',
      source: { component: 'kruise-daemon-imagepuller' },
    });
    await puller.stop();
  });

  it('never runs more pulls at once than --max-workers-for-pull-image', async () => {
    const service = inFlightCounter();
    const tags = Array.from({ length: 6 }, (_, i) => tag(`t${i}`, 0, { backoffLimit: 0 }));
    const puller = await startPuller(
      'p-cap',
      { [`${registry}/capped`]: { tags } },
      { maxWorkers: 2, images: service },
    );
    await until(async () => ((await nodeImage('p-cap')).status?.failed === 6 ? true : undefined));
    expect(service.calls).toBe(6);
    expect(service.peak.get('all')).toBe(2);
    await puller.stop();
  });

  it('never runs more pulls at once from one registry than --max-workers-per-registry', async () => {
    // Two registry names of one registry: 127.0.0.1:port and localhost:port are capped apart.
    const other = registry.replace('127.0.0.1', 'localhost');
    const service = inFlightCounter();
    const tags = Array.from({ length: 3 }, (_, i) => tag(`t${i}`, 0, { backoffLimit: 0 }));
    const puller = await startPuller(
      'p-cap-registry',
      { [`${registry}/capped`]: { tags }, [`${other}/capped`]: { tags } },
      { maxWorkersPerRegistry: 1, images: service },
    );
    await until(async () => ((await nodeImage('p-cap-registry')).status?.failed === 6 ? true : undefined));
    expect(service.calls).toBe(6);
    expect(service.peak.get(registry)).toBe(1);
    expect(service.peak.get(other)).toBe(1);
    expect(service.peak.get('all')).toBe(2);
    await puller.stop();
  });
});

/**
 * The containerd image service, counting PullImage calls in flight (overall and per registry) as
 * they reach it; each call is held 200 ms first, so pulls that may overlap do.
 */
function inFlightCounter() {
  const service = new CriImageService(cri, 'containerd', 100);
  const now = new Map<string, number>();
  const peak = new Map<string, number>();
  const counter = {
    name: service.name,
    calls: 0,
    peak,
    present: service.present.bind(service),
    pull: async (image: string, options: Parameters<typeof service.pull>[1]) => {
      counter.calls++;
      const keys = ['all', image.slice(0, image.indexOf('/'))];
      for (const k of keys) {
        now.set(k, (now.get(k) ?? 0) + 1);
        peak.set(k, Math.max(peak.get(k) ?? 0, now.get(k)!));
      }
      try {
        await new Promise((r) => setTimeout(r, 200));
        return await service.pull(image, options);
      } finally {
        for (const k of keys) now.set(k, now.get(k)! - 1);
      }
    },
  };
  return counter;
}
