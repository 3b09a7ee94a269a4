import { KruiseResources, type NodeImage } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atRest, type CacheCheck, reconciledOn } from '../../../test/support/reconciled.ts';
import type { ManagerApp } from '../src/index.ts';
import { trimmedNodeImages } from '../src/informers.ts';
import { addNode, eventually, report, startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;
const NODES = ['node-a', 'node-b', 'node-c', 'node-d'];

beforeAll(async () => {
  ({ cp, client, app } = await startEnv([], { random: () => 0 }));
  for (const [i, n] of NODES.entries()) await addNode(client, n, { zone: i < 2 ? 'east' : 'west' });
  await eventually(async () => (await client.list(KruiseResources.NodeImage)).items.length === NODES.length);
});
afterAll(async () => {
  await app.stop();
  await cp.stop();
});

const getJob = (name: string) => client.get(KruiseResources.ImagePullJob, 'default', name);
const nodeImage = (n: string) => client.get<NodeImage & KubeObject>(KruiseResources.NodeImage, undefined, n);
const tagOn = async (n: string, image: string, tag: string) =>
  (await nodeImage(n)).spec?.images?.[image]?.tags.find((t) => t.tag === tag);
const nodesWith = async (image: string, tag: string) => {
  const out: string[] = [];
  for (const n of NODES) if (await tagOn(n, image, tag)) out.push(n);
  return out;
};
/** What the ImagePullJob controller reads: the jobs and the NodeImages. */
const caches = (): CacheCheck[] => [
  {
    informer: app.manager.informers.informerFor<KubeObject>({ resource: KruiseResources.ImagePullJob }),
    read: async () => (await client.list(KruiseResources.ImagePullJob, { namespace: 'default' })).items,
  },
  {
    informer: trimmedNodeImages(app.manager),
    read: async () => (await client.list(KruiseResources.NodeImage)).items,
  },
];
/** Resolves once a reconcile of job `name` that saw the jobs and NodeImages as the API has them now has finished. */
const reconciled = (name: string) =>
  reconciledOn(app.controllers.get('imagepulljob')!, `default/${name}`, ...caches());
const createJob = (name: string, spec: Record<string, unknown>) =>
  client.create(KruiseResources.ImagePullJob, {
    metadata: { name, namespace: 'default' },
    spec: { completionPolicy: { type: 'Always' }, ...spec },
  });

describe('NodeImage lifecycle', () => {
  it('creates one NodeImage per Ready node with its labels, and deletes it with the node', async () => {
    const ni = await nodeImage('node-c');
    expect(ni.metadata?.labels).toMatchObject({ zone: 'west', 'kubernetes.io/hostname': 'node-c' });
    await addNode(client, 'node-gone');
    await eventually(() => nodeImage('node-gone'));
    await client.delete(Resources.Node, undefined, 'node-gone');
    await eventually(async () => !(await nodeImage('node-gone').catch(() => undefined)));
  });
});

describe('ImagePullJob', () => {
  it('never exceeds parallelism, counting nodes that have not reported as active, and completes', async () => {
    await createJob('par', { image: 'busybox:v1', parallelism: 2 });
    await eventually(async () => (await nodesWith('busybox', 'v1')).length === 2);
    // The status follows the tagging: wait for it, then until the controller saw it — no third node is tagged.
    await eventually(async () => (await getJob('par')).status?.active === 2);
    await reconciled('par');
    expect(await nodesWith('busybox', 'v1')).toEqual(['node-a', 'node-b']);
    expect((await getJob('par')).status).toMatchObject({ desired: 4, active: 2, succeeded: 0 });
    await report(client, 'node-a', 'busybox', 'v1', 'Succeeded');
    await eventually(async () => (await nodesWith('busybox', 'v1')).length === 3);
    await reconciled('par');
    expect((await nodesWith('busybox', 'v1')).length).toBe(3);
    for (const n of ['node-b', 'node-c']) await report(client, n, 'busybox', 'v1', 'Succeeded');
    await eventually(async () => (await nodesWith('busybox', 'v1')).length === 4);
    await report(client, 'node-d', 'busybox', 'v1', 'Failed', 'not found');
    const done = await eventually(async () => {
      const j = await getJob('par');
      return j.status?.completionTime ? j : undefined;
    });
    expect(done.status).toMatchObject({
      desired: 4,
      active: 0,
      succeeded: 3,
      failed: 1,
      failedNodes: ['node-d'],
      message: 'job has completed',
    });
    const tag = await tagOn('node-a', 'busybox', 'v1');
    expect(tag).toMatchObject({
      version: 0,
      imagePullPolicy: 'IfNotPresent',
      pullPolicy: { timeoutSeconds: 600, backoffLimit: 3, ttlSecondsAfterFinished: 1800 + 300 },
    });
    expect(tag?.ownerReferences?.[0]).toMatchObject({
      kind: 'ImagePullJob',
      name: 'par',
      namespace: 'default',
      uid: done.metadata?.uid,
    });
  });

  it('selects nodes by names and by labels', async () => {
    await createJob('by-names', {
      image: 'alpine:1',
      parallelism: 10,
      selector: { names: ['node-c', 'missing'] },
    });
    await createJob('by-labels', {
      image: 'alpine:2',
      parallelism: 10,
      selector: { matchLabels: { zone: 'east' } },
    });
    await eventually(
      async () =>
        (await nodesWith('alpine', '1')).length === 1 && (await nodesWith('alpine', '2')).length === 2,
    );
    expect(await nodesWith('alpine', '1')).toEqual(['node-c']);
    expect(await nodesWith('alpine', '2')).toEqual(['node-a', 'node-b']);
    expect((await getJob('by-names')).status?.desired).toBe(1);
  });

  it('selects the nodes of active scheduled pods with podSelector', async () => {
    for (const [name, node] of [
      ['web-1', 'node-b'],
      ['web-2', 'node-d'],
      ['other', 'node-a'],
    ] as const) {
      await client.create(Resources.Pod, {
        metadata: { name, namespace: 'default', labels: { app: name.startsWith('web') ? 'web' : 'x' } },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'x' }] },
      });
    }
    await createJob('by-pods', {
      image: 'redis:7',
      parallelism: 10,
      podSelector: { matchLabels: { app: 'web' } },
    });
    await eventually(async () => (await nodesWith('redis', '7')).length === 2);
    expect(await nodesWith('redis', '7')).toEqual(['node-b', 'node-d']);
  });

  it('fails what is left when the deadline passes', async () => {
    await createJob('deadline', {
      image: 'deadline:1',
      parallelism: 1,
      pullPolicy: { timeoutSeconds: 1 },
      completionPolicy: { type: 'Always', activeDeadlineSeconds: 2 },
    });
    const done = await eventually(async () => {
      const j = await getJob('deadline');
      return j.status?.completionTime ? j : undefined;
    });
    expect(done.status).toMatchObject({
      desired: 4,
      failed: 4,
      active: 0,
      message: 'job exceeds activeDeadlineSeconds',
      failedNodes: NODES,
    });
  });

  it('deletes a finished job after its TTL', async () => {
    await createJob('ttl', {
      image: 'ttl:1',
      parallelism: 4,
      selector: { names: ['node-a'] },
      completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 1 },
    });
    await eventually(() => tagOn('node-a', 'ttl', '1'));
    await report(client, 'node-a', 'ttl', '1', 'Succeeded');
    await eventually(async () => !(await getJob('ttl').catch(() => undefined)));
  });

  it('completes at once when no node matches', async () => {
    await createJob('nothing', { image: 'nothing:1', selector: { matchLabels: { zone: 'nowhere' } } });
    const done = await eventually(async () =>
      (await getJob('nothing')).status?.completionTime ? getJob('nothing') : undefined,
    );
    expect(done.status).toMatchObject({ desired: 0, message: 'job has completed' });
  });

  it('lets two jobs on one tag share it, bumping its version', async () => {
    await createJob('share-1', { image: 'shared:1', selector: { names: ['node-a'] } });
    await eventually(() => tagOn('node-a', 'shared', '1'));
    await createJob('share-2', { image: 'docker.io/library/shared:1', selector: { names: ['node-a'] } });
    const tag = await eventually(async () => {
      const t = await tagOn('node-a', 'shared', '1');
      return t?.ownerReferences?.length === 2 ? t : undefined;
    });
    expect(tag.version).toBe(1);
    expect(tag.ownerReferences?.map((o) => o.name)).toEqual(['share-1', 'share-2']);
  });

  it('never completes a Never job, and drops its tag with the job', async () => {
    await createJob('never', {
      image: 'never:1',
      parallelism: 4,
      selector: { names: ['node-b'] },
      completionPolicy: { type: 'Never' },
    });
    await eventually(() => tagOn('node-b', 'never', '1'));
    const tag = await tagOn('node-b', 'never', '1');
    expect(tag?.pullPolicy).toMatchObject({
      ttlSecondsAfterFinished: 86400 - 600,
      activeDeadlineSeconds: 1800,
    });
    await report(client, 'node-b', 'never', '1', 'Succeeded');
    await eventually(async () => (await getJob('never')).status?.succeeded === 1);
    await reconciled('never');
    expect((await getJob('never')).status?.completionTime).toBeUndefined();
    await client.delete(KruiseResources.ImagePullJob, 'default', 'never');
    await eventually(async () => !(await getJob('never').catch(() => undefined)));
    await eventually(async () => !(await tagOn('node-b', 'never', '1')));
  });

  it('wakes only the jobs whose tag changed when a NodeImage status changes', async () => {
    const controller = app.controllers.get('imagepulljob')!;
    const reconciles = () => controller.counts.success + controller.counts.requeueAfter;
    await atRest(controller, ...caches());
    const before = reconciles();
    await report(client, 'node-c', 'alpine', '1', 'Pulling');
    // the controller's cache holds the change (its handler has queued what it queues) and it is idle
    await atRest(controller, ...caches());
    expect(reconciles() - before).toBe(1);
  });
});
