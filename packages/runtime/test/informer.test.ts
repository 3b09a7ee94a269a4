import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Indexers,
  Informer,
  InformerFactory,
  KubeClient,
  type KubeObject,
  Resources,
  withoutManagedFields,
} from '../src/index.ts';
import { eventually, startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
beforeAll(async () => ({ cp, client } = await startEnv({ historyLimit: 100, bookmarkIntervalMs: 60_000 })));
afterAll(() => cp.stop());

const pod = (name: string, node: string, labels: Record<string, string> = {}) => ({
  metadata: { name, namespace: 'inf', labels },
  spec: { nodeName: node, containers: [{ name: 'c', image: 'x' }] },
});

describe('Informer', () => {
  beforeAll(async () => {
    await client.create(Resources.Namespace, { metadata: { name: 'inf' } });
  });

  it('lists, then follows adds, updates and deletes, with indexes kept in step', async () => {
    await client.create(Resources.Pod, pod('a', 'n1'));
    const informer = new Informer(client, { resource: Resources.Pod, namespace: 'inf' }).addIndex(
      'node',
      Indexers.nodeName,
    );
    const seen: string[] = [];
    informer.addEventHandler({
      add: (o) => seen.push(`add:${o.metadata?.name}`),
      update: (_o, n) => seen.push(`update:${n.metadata?.name}`),
      delete: (o) => seen.push(`delete:${o.metadata?.name}`),
    });
    informer.start();
    await informer.waitForSync();
    expect(informer.hasSynced()).toBe(true);
    await client.create(Resources.Pod, pod('b', 'n2'));
    await client.mergePatch(Resources.Pod, 'inf', 'a', { metadata: { labels: { x: 'y' } } });
    await client.delete(Resources.Pod, 'inf', 'b', { gracePeriodSeconds: 0 });
    await eventually(() => seen.includes('delete:b'));
    expect(seen).toEqual(['add:a', 'add:b', 'update:a', 'delete:b']);
    expect(informer.byIndex('node', 'n1').map((p) => p.metadata?.name)).toEqual(['a']);
    expect(informer.byIndex('node', 'n2')).toEqual([]);
    expect(typeof informer.get('inf/a')?.metadata?.creationTimestamp).toBe('string');
    await informer.stop();
  });

  it('survives a dropped watch and a 410 without losing an event', async () => {
    const informer = new Informer(client, {
      resource: Resources.ConfigMap,
      namespace: 'inf',
      minBackoffMs: 20,
    });
    const added = new Set<string>();
    const deleted = new Set<string>();
    informer.addEventHandler({
      add: (o) => added.add(o.metadata!.name!),
      delete: (o) => deleted.add(o.metadata!.name!),
    });
    informer.start();
    await informer.waitForSync();
    await client.create(Resources.ConfigMap, { metadata: { name: 'before', namespace: 'inf' } });
    await eventually(() => added.has('before'));
    cp.faults.dropWatches();
    await client.create(Resources.ConfigMap, { metadata: { name: 'during-drop', namespace: 'inf' } });
    await eventually(() => added.has('during-drop'));
    // Keep the informer from reconnecting while changes happen and history is compacted:
    // when it is let back in, its resourceVersion is gone (410) and it must relist.
    const listsBefore = informer.stats.lists;
    cp.faults.failRequests('/configmaps', Number.POSITIVE_INFINITY, 500, ['watch']);
    cp.faults.dropWatches();
    await client.create(Resources.ConfigMap, { metadata: { name: 'after-gone', namespace: 'inf' } });
    await client.delete(Resources.ConfigMap, 'inf', 'before');
    cp.faults.compactHistory();
    // Let it be refused at least once more before it is let back in.
    const refused = cp.faults.injectedCount();
    await eventually(() => cp.faults.injectedCount() > refused);
    cp.faults.clear();
    await eventually(() => added.has('after-gone') && deleted.has('before'), 10_000);
    expect(informer.stats.lists).toBeGreaterThan(listsBefore);
    expect(informer.stats.relistsOnGone).toBeGreaterThan(0);
    expect(
      informer
        .list()
        .map((c) => c.metadata?.name)
        .sort(),
    ).toEqual(['after-gone', 'during-drop', 'kube-root-ca.crt']);
    await informer.stop();
  });

  it('restarts a watch that went quiet', async () => {
    const informer = new Informer(client, {
      resource: Resources.Secret,
      namespace: 'inf',
      staleAfterMs: 300,
      minBackoffMs: 20,
      maxBackoffMs: 100,
    });
    informer.start();
    await informer.waitForSync();
    await eventually(() => informer.stats.staleRestarts > 0 && informer.stats.watches > 1, 5000);
    await informer.stop();
  });

  it('shares one informer per resource and selector', async () => {
    const factory = new InformerFactory(client);
    const a = factory.informerFor<KubeObject>({ resource: Resources.Pod, namespace: 'inf' });
    const b = factory.informerFor<KubeObject>({ resource: Resources.Pod, namespace: 'inf' });
    const c = factory.informerFor<KubeObject>({
      resource: Resources.Pod,
      namespace: 'inf',
      labelSelector: 'x=y',
    });
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    factory.start();
    await factory.waitForCacheSync();
    expect(c.list().map((p) => p.metadata?.name)).toEqual(['a']);
    const late: string[] = [];
    a.addEventHandler({ add: (o) => late.push(o.metadata!.name!) });
    expect(late).toEqual(['a']);
    await factory.stop();
  });

  it('stops without waiting for its watch request, even one the server never answers', async () => {
    const user = 'informer-cut-off';
    const own = KubeClient.fromString(
      cp.kubeconfig(cp.tokens.addStaticToken({ username: user, groups: ['system:masters'] }), user),
    );
    const informer = new Informer(own, { resource: Resources.Pod, namespace: 'inf', minBackoffMs: 10 });
    informer.start();
    await informer.waitForSync();
    // The partition resets its watch; the watch it opens again gets no answer, ever (until healed).
    const watches = informer.stats.watches;
    cp.faults.partition(user);
    await eventually(() => informer.stats.watches > watches);
    await informer.stop();
    cp.faults.heal(user);
    own.close();
  });

  it('filters by field selector', async () => {
    await client.create(Resources.Pod, pod('on-n3', 'n3'));
    const informer = new Informer(client, { resource: Resources.Pod, fieldSelector: 'spec.nodeName=n3' });
    informer.start();
    await informer.waitForSync();
    expect(informer.list().map((p) => p.metadata?.name)).toEqual(['on-n3']);
    // A pod elsewhere, then a marker on n3: once the marker is cached, the other would be too.
    await client.create(Resources.Pod, pod('on-n4', 'n4'));
    await client.create(Resources.Pod, pod('marker-on-n3', 'n3'));
    await eventually(() => informer.get('inf/marker-on-n3'));
    expect(
      informer
        .list()
        .map((p) => p.metadata?.name)
        .sort(),
    ).toEqual(['marker-on-n3', 'on-n3']);
    await informer.stop();
  });
});

describe('withoutManagedFields (a cache trim)', () => {
  it('caches objects without managedFields, and a write from a cached copy keeps the stored ones', async () => {
    await client.create(Resources.ConfigMap, {
      metadata: { name: 'trimmed', namespace: 'inf', labels: { a: '1' } },
      data: { k: 'v' },
    });
    const informer = new Informer<KubeObject>(client, {
      resource: Resources.ConfigMap,
      namespace: 'inf',
      transform: withoutManagedFields,
    });
    informer.start();
    await informer.waitForSync();
    const cached = informer.get('inf/trimmed')!;
    expect(cached.metadata?.managedFields).toBeUndefined();
    expect(cached.metadata?.labels).toEqual({ a: '1' });
    expect(cached.data).toEqual({ k: 'v' });
    const stored = await client.get(Resources.ConfigMap, 'inf', 'trimmed');
    expect(stored.metadata?.managedFields?.length).toBeGreaterThan(0);
    const written = await client.update(Resources.ConfigMap, {
      ...structuredClone(cached),
      data: { k: 'w' },
    });
    // The creator still owns the label; the writer of the cached copy now owns data.k.
    const managers = (written.metadata?.managedFields ?? []).map((e: any) => e.fieldsV1);
    expect(managers.some((f: any) => f['f:metadata']?.['f:labels']?.['f:a'])).toBe(true);
    expect(managers.some((f: any) => f['f:data']?.['f:k'])).toBe(true);
    await eventually(() => informer.get('inf/trimmed')?.data?.k === 'w');
    expect(informer.get('inf/trimmed')?.metadata?.managedFields).toBeUndefined();
    await informer.stop();
  });
});
