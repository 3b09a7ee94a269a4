import { CoreV1Api, makeInformer, type V1ConfigMap, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { eventually, kubeConfigFor, startControlPlane } from './helpers.ts';

let cp: ControlPlane;
let core: CoreV1Api;

beforeAll(async () => {
  cp = await startControlPlane({ historyLimit: 50, bookmarkIntervalMs: 200 });
  core = kubeConfigFor(cp).makeApiClient(CoreV1Api);
});
afterAll(() => cp.stop());

/** Opens a raw watch and collects its events until `done` is called. */
function collect(path: string, query: Record<string, string | number | boolean | undefined>) {
  const events: { type: string; obj: any }[] = [];
  let ended: unknown = null;
  let controller: AbortController | undefined;
  const started = new Watch(kubeConfigFor(cp))
    .watch(
      path,
      query,
      (type, obj) => events.push({ type, obj }),
      (err) => (ended = err ?? 'closed'),
    )
    .then((c) => (controller = c));
  return { events, started, ended: () => ended, stop: () => controller?.abort() };
}

describe('watch', () => {
  it('streams ADDED, MODIFIED and DELETED from a resourceVersion, and sends bookmarks', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    const w = collect('/api/v1/namespaces/default/configmaps', {
      resourceVersion: list.metadata?.resourceVersion,
      allowWatchBookmarks: true,
    });
    await w.started;
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'w1' } } });
    await core.replaceNamespacedConfigMap({
      name: 'w1',
      namespace: 'default',
      body: { metadata: { name: 'w1' }, data: { a: '1' } },
    });
    await core.deleteNamespacedConfigMap({ name: 'w1', namespace: 'default' });
    await eventually(
      () => w.events.some((e) => e.type === 'BOOKMARK') && w.events.some((e) => e.type === 'DELETED'),
    );
    expect(
      w.events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type}:${e.obj.metadata.name}`),
    ).toEqual(['ADDED:w1', 'MODIFIED:w1', 'DELETED:w1']);
    const rvs = w.events.map((e) => Number(e.obj.metadata.resourceVersion));
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
    w.stop();
  });

  it('turns label changes into ADDED and DELETED for a selector', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'sel', labels: { on: 'no' } } },
    });
    const w = collect('/api/v1/namespaces/default/configmaps', { labelSelector: 'on=yes' });
    await w.started;
    const patch = (on: string) =>
      core.replaceNamespacedConfigMap({
        name: 'sel',
        namespace: 'default',
        body: { metadata: { name: 'sel', labels: { on } } },
      });
    await patch('yes');
    await patch('no');
    await eventually(() => w.events.length >= 2);
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    w.stop();
  });

  it('parses boolean parameters as kube-apiserver: ?watch=True watches, allowWatchBookmarks=True gets bookmarks', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    // Python's spelling of booleans; only absent, 0 and false (any case) are false.
    const w = collect('/api/v1/namespaces/default/configmaps', {
      watch: 'True',
      resourceVersion: list.metadata?.resourceVersion,
      allowWatchBookmarks: 'True',
    });
    await w.started;
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'py-bool' } } });
    await eventually(
      () =>
        w.events.some((e) => e.type === 'BOOKMARK') &&
        w.events.some((e) => e.obj?.metadata?.name === 'py-bool'),
    );
    w.stop();
    const off = collect('/api/v1/namespaces/default/configmaps', {
      resourceVersion: list.metadata?.resourceVersion,
      allowWatchBookmarks: 'FALSE',
    });
    await off.started;
    // A watch opened after it that gets a bookmark: the bookmark round went over both. A ConfigMap
    // created after that reaches `off` behind anything that round sent it.
    const on = collect('/api/v1/namespaces/default/configmaps', { allowWatchBookmarks: 'True' });
    await on.started;
    await eventually(() => on.events.some((e) => e.type === 'BOOKMARK'));
    on.stop();
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'py-marker' } } });
    await eventually(() => off.events.some((e) => e.obj?.metadata?.name === 'py-marker'));
    expect(off.events.some((e) => e.type === 'BOOKMARK')).toBe(false);
    expect(off.events.some((e) => e.obj?.metadata?.name === 'py-bool')).toBe(true);
    off.stop();
  });

  it('answers 410 Gone for a resourceVersion older than the history window', async () => {
    const old = (await core.listNamespacedConfigMap({ namespace: 'default' })).metadata!.resourceVersion;
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'after-list' } },
    });
    cp.faults.compactHistory();
    const w = collect('/api/v1/namespaces/default/configmaps', { resourceVersion: old });
    await w.started;
    await eventually(() => w.events.length > 0);
    expect(w.events[0]!.type).toBe('ERROR');
    expect(w.events[0]!.obj).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
  });

  it('keeps a client-node informer complete across a watch drop and a 410', async () => {
    await core.createNamespace({ body: { metadata: { name: 'inf' } } });
    const informer = makeInformer<V1ConfigMap>(kubeConfigFor(cp), '/api/v1/namespaces/inf/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'inf' }),
    );
    const seen = new Set<string>();
    informer.on('add', (cm) => seen.add(cm.metadata!.name!));
    informer.on('error', () => setTimeout(() => void informer.start(), 50));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: 'inf', body: { metadata: { name: 'before' } } });
    await eventually(() => seen.has('before'));
    expect(cp.faults.dropWatches()).toBeGreaterThan(0);
    await core.createNamespacedConfigMap({ namespace: 'inf', body: { metadata: { name: 'during-drop' } } });
    for (let i = 0; i < 60; i++)
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { generateName: 'churn-' } },
      });
    cp.faults.compactHistory();
    cp.faults.dropWatches();
    await core.createNamespacedConfigMap({ namespace: 'inf', body: { metadata: { name: 'after-410' } } });
    await eventually(() => seen.has('during-drop') && seen.has('after-410'), 10_000);
    // kube-root-ca.crt: the root CA publisher's, in every namespace
    expect(
      informer
        .list()
        .map((c) => c.metadata?.name)
        .sort(),
    ).toEqual(['after-410', 'before', 'during-drop', 'kube-root-ca.crt']);
    await informer.stop();
  });

  it('serves many watchers without blocking writers', async () => {
    const watchers = Array.from({ length: 30 }, () =>
      collect('/api/v1/namespaces/default/configmaps', { labelSelector: 'fan=out' }),
    );
    await Promise.all(watchers.map((w) => w.started));
    for (let i = 0; i < 20; i++) {
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: `fan-${i}`, labels: { fan: 'out' } } },
      });
    }
    await eventually(() => watchers.every((w) => w.events.length === 20));
    for (const w of watchers) w.stop();
  });
});
