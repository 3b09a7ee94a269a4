import { KruiseResources, type NodeImage } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconciledOn } from '../../../test/support/reconciled.ts';
import type { ManagerApp } from '../src/index.ts';
import { trimmedNodeImages, trimmedNodes } from '../src/informers.ts';
import { addNode, eventually, report, startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;

beforeAll(async () => {
  ({ cp, client, app } = await startEnv([], { responseTimeoutMs: 1500 }));
  for (const n of ['n1', 'n2']) await addNode(client, n);
  await eventually(async () => (await client.list(KruiseResources.NodeImage)).items.length === 2);
});
afterAll(async () => {
  await app.stop();
  await cp.stop();
});

const nodeImage = (n: string) => client.get<NodeImage & KubeObject>(KruiseResources.NodeImage, undefined, n);
const tagOn = async (n: string, image: string, tag: string) =>
  (await nodeImage(n)).spec?.images?.[image]?.tags.find((t) => t.tag === tag);
const copies = async () => (await client.list(Resources.Secret, { namespace: 'kruise-daemon-config' })).items;
const job = (name: string, spec: Record<string, unknown>) => ({
  metadata: { name, namespace: 'default' },
  spec: { completionPolicy: { type: 'Always' }, ...spec },
});

describe('pull secrets', () => {
  it('shares one copy per source secret, follows source changes, and releases it', async () => {
    const dockerconfig = (pw: string) =>
      Buffer.from(
        JSON.stringify({ auths: { '127.0.0.1:5000': { auth: Buffer.from(`u:${pw}`).toString('base64') } } }),
      ).toString('base64');
    await client.create(Resources.Secret, {
      metadata: { name: 'regcred', namespace: 'default', labels: { team: 'a' } },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': dockerconfig('one') },
    });
    await client.create(
      KruiseResources.ImagePullJob,
      job('sec-1', { image: 'private:1', pullSecrets: ['regcred'], selector: { names: ['n1'] } }),
    );
    await client.create(
      KruiseResources.ImagePullJob,
      job('sec-2', { image: 'private:2', pullSecrets: ['regcred'], selector: { names: ['n1'] } }),
    );
    const copy = await eventually(async () => {
      const c = (await copies())[0];
      return c?.metadata?.annotations?.['imagepulljobs.kruise.io/references'] ===
        'default/sec-1,default/sec-2'
        ? c
        : undefined;
    });
    expect(await copies()).toHaveLength(1);
    expect(copy.metadata?.name).toMatch(/^regcred-[0-9a-f]{6}$/);
    expect(copy.metadata?.annotations).toMatchObject({
      'imagepulljobs.kruise.io/source-key': 'default/regcred',
      'imagepulljobs.kruise.io/mode': 'batch',
    });
    expect(copy.metadata?.labels).toEqual({ team: 'a' });
    const spec = (await eventually(() => tagOn('n1', 'private', '1')).then(() => nodeImage('n1'))).spec
      ?.images?.private;
    expect(spec?.pullSecrets).toEqual([
      { namespace: 'kruise-daemon-config', name: copy.metadata?.name, mode: 'batch' },
    ]);

    await client.mergePatch(Resources.Secret, 'default', 'regcred', {
      data: { '.dockerconfigjson': dockerconfig('two') },
    });
    await eventually(async () => (await copies())[0]?.data?.['.dockerconfigjson'] === dockerconfig('two'));

    await report(client, 'n1', 'private', '1', 'Succeeded');
    await eventually(
      async () =>
        (await copies())[0]?.metadata?.annotations?.['imagepulljobs.kruise.io/references'] ===
        'default/sec-2',
    );
    await client.delete(KruiseResources.ImagePullJob, 'default', 'sec-2');
    await eventually(async () => (await copies()).length === 0);
  });
});

describe('NodeImage status pass', () => {
  it('fails a tag the node never reports, with PullImageFailed events on the job and the NodeImage', async () => {
    await client.create(
      KruiseResources.ImagePullJob,
      job('silent', { image: 'silent:1', selector: { names: ['n2'] } }),
    );
    const failed = await eventually(async () => {
      const s = (await nodeImage('n2')).status?.imageStatuses?.silent?.tags?.[0];
      return s?.phase === 'Failed' ? s : undefined;
    });
    expect(failed.message).toBe('node has not responded for a long time');
    const done = await eventually(async () => {
      const j = await client.get(KruiseResources.ImagePullJob, 'default', 'silent');
      return j.status?.completionTime ? j : undefined;
    });
    expect(done.status).toMatchObject({ failed: 1, failedNodes: ['n2'] });
    const events = await eventually(async () => {
      const list = (
        await client.list(Resources.Event, {
          namespace: 'default',
          fieldSelector: 'involvedObject.name=silent',
        })
      ).items;
      return list.length ? list : undefined;
    });
    expect(events[0]).toMatchObject({
      reason: 'PullImageFailed',
      type: 'Warning',
      message: 'Failed to pull image silent:1 on node n2 for node has not responded for a long time',
    });
    const niEvents = (
      await client.list(Resources.Event, {
        namespace: 'default',
        fieldSelector: 'involvedObject.kind=NodeImage',
      })
    ).items;
    expect(niEvents.some((e) => e.involvedObject.name === 'n2' && e.reason === 'PullImageFailed')).toBe(true);
  });

  it('drops a finished tag after its TTL, and a Never job pulls again with a higher version', async () => {
    await client.create(
      KruiseResources.ImagePullJob,
      job('daily', { image: 'daily:1', selector: { names: ['n1'] }, completionPolicy: { type: 'Never' } }),
    );
    const original = await eventually(() => tagOn('n1', 'daily', '1'));
    const ni = await nodeImage('n1');
    const tags = ni.spec!.images!.daily!.tags.map((t) => ({
      ...t,
      pullPolicy: { ...t.pullPolicy, ttlSecondsAfterFinished: 1 },
    }));
    await client.update(KruiseResources.NodeImage, {
      ...ni,
      spec: { images: { ...ni.spec!.images, daily: { ...ni.spec!.images!.daily, tags } } },
    });
    await report(client, 'n1', 'daily', '1', 'Succeeded');
    const again = await eventually(async () => {
      const t = await tagOn('n1', 'daily', '1');
      return t && t.createdAt !== original.createdAt ? t : undefined;
    });
    expect(again.pullPolicy?.ttlSecondsAfterFinished).toBeGreaterThan(80_000);
    // The daemon sees a version with no finished status, so it pulls again.
    const status = (await nodeImage('n1')).status?.imageStatuses?.daily?.tags?.find(
      (t) => t.version === again.version,
    );
    expect(status?.completionTime).toBeUndefined();
  });
});

describe('NodeImage edge cases', () => {
  it('keeps a fake NodeImage that has no Node', async () => {
    await client.create(KruiseResources.NodeImage, {
      metadata: { name: 'fake-1', labels: { 'apps.kruise.io/fake-nodeimage': 'true' } },
      spec: {},
    });
    // once the controller has reconciled it, seeing no Node of that name, it is still there
    await reconciledOn(
      app.controllers.get('nodeimage')!,
      'fake-1',
      { informer: trimmedNodeImages(app.manager), read: async () => [await nodeImage('fake-1')] },
      { informer: trimmedNodes(app.manager), read: async () => (await client.list(Resources.Node)).items },
    );
    expect((await nodeImage('fake-1')).metadata?.name).toBe('fake-1');
  });

  it('fails a tag still pulling past createdAt + activeDeadlineSeconds + the response grace', async () => {
    await client.create(
      KruiseResources.ImagePullJob,
      job('slow', {
        image: 'slow:1',
        selector: { names: ['n2'] },
        pullPolicy: { timeoutSeconds: 1 },
        completionPolicy: { type: 'Always', activeDeadlineSeconds: 1 },
      }),
    );
    await eventually(() => tagOn('n2', 'slow', '1'));
    await report(client, 'n2', 'slow', '1', 'Pulling');
    const failed = await eventually(async () => {
      const s = (await nodeImage('n2')).status?.imageStatuses?.slow?.tags?.[0];
      return s?.phase === 'Failed' ? s : undefined;
    });
    expect(failed.message).toBe('pulling exceeds the activeDeadlineSeconds');
  });
});

describe('ImageListPullJob', () => {
  it('creates a child per image, rolls their status up, recreates on template change, and cleans up', async () => {
    await client.create(KruiseResources.ImageListPullJob, {
      metadata: { name: 'list', namespace: 'default' },
      spec: {
        images: ['list-a:1', 'list-b:1'],
        selector: { names: ['n2'] },
        completionPolicy: { type: 'Always' },
      },
    });
    const children = async () =>
      (await client.list(KruiseResources.ImagePullJob, { namespace: 'default' })).items.filter(
        (j) => j.metadata?.ownerReferences?.[0]?.name === 'list',
      );
    const first = await eventually(async () => {
      const c = await children();
      return c.length === 2 ? c : undefined;
    });
    expect(first.map((c) => c.spec.image).sort()).toEqual(['list-a:1', 'list-b:1']);
    expect(first[0]!.metadata?.name).toMatch(/^list-/);
    const hash = first[0]!.metadata?.labels?.['controller-revision-hash'];
    expect(hash).toMatch(/^[0-9a-f]+$/);
    await eventually(() => tagOn('n2', 'list-a', '1'));
    await eventually(() => tagOn('n2', 'list-b', '1'));
    await report(client, 'n2', 'list-a', '1', 'Succeeded');
    await report(client, 'n2', 'list-b', '1', 'Failed', 'manifest unknown');
    const rolled = await eventually(async () => {
      const l = await client.get(KruiseResources.ImageListPullJob, 'default', 'list');
      return l.status?.completionTime ? l : undefined;
    });
    expect(rolled.status).toMatchObject({ desired: 2, completed: 2, succeeded: 1, active: 0 });
    expect(rolled.status.failedImageStatuses).toEqual([
      { imagePullJob: expect.stringMatching(/^list-/), name: 'list-b:1', message: 'job has completed' },
    ]);

    await client.create(KruiseResources.ImageListPullJob, {
      metadata: { name: 'list2', namespace: 'default' },
      spec: { images: ['list-c:1'], selector: { names: ['n2'] }, completionPolicy: { type: 'Never' } },
    });
    const kids = async () =>
      (await client.list(KruiseResources.ImagePullJob, { namespace: 'default' })).items.filter(
        (j) => j.metadata?.ownerReferences?.[0]?.name === 'list2',
      );
    const old = await eventually(async () => (await kids())[0]);
    await client.mergePatch(KruiseResources.ImageListPullJob, 'default', 'list2', {
      spec: { parallelism: 5 },
    });
    const replaced = await eventually(async () => {
      const k = await kids();
      return k.length === 1 && k[0]!.metadata?.uid !== old.metadata?.uid && !k[0]!.metadata?.deletionTimestamp
        ? k[0]
        : undefined;
    });
    expect(replaced.spec.parallelism).toBe(5);
    await client.delete(KruiseResources.ImageListPullJob, 'default', 'list2');
    await eventually(async () => (await kids()).length === 0);
  });
});
