import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { eventually, expectStatus, kubeConfigFor, rawRequest, startControlPlane } from './helpers.ts';

let cp: ControlPlane;
let core: CoreV1Api;
let apps: AppsV1Api;

const pod = (name: string, extra: Record<string, any> = {}) => ({
  metadata: { name, labels: { app: 'web' }, ...extra.metadata },
  spec: { containers: [{ name: 'app', image: 'busybox:v1' }], ...extra.spec },
});

beforeAll(async () => {
  // Exact resourceVersions: nothing but the test writes (no scheduler).
  // The objects' lifecycle is the subject: no scheduler or ReplicaSet/Deployment controller writes them.
  cp = await startControlPlane({ scheduler: false, replicaSets: false });
  const kc = kubeConfigFor(cp);
  core = kc.makeApiClient(CoreV1Api);
  apps = kc.makeApiClient(AppsV1Api);
});
afterAll(() => cp.stop());

describe('object lifecycle', () => {
  it('creates with uid, creationTimestamp, resourceVersion and defaults', async () => {
    const created = await core.createNamespacedPod({ namespace: 'default', body: pod('life-1') });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(created.spec?.restartPolicy).toBe('Always');
    expect(created.status?.phase).toBe('Pending');
    const got = await core.readNamespacedPod({ name: 'life-1', namespace: 'default' });
    expect(got.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
  });

  it('names objects from generateName', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { generateName: 'gen-' } },
    });
    expect(created.metadata?.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });

  it('answers AlreadyExists, NotFound and Conflict with kube-apiserver messages', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'cm-1' }, data: { a: '1' } },
    });
    const exists = await expectStatus(() =>
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm-1' } } }),
    );
    expect(exists).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: 'configmaps "cm-1" already exists',
    });
    const missing = await expectStatus(() =>
      core.readNamespacedConfigMap({ name: 'nope', namespace: 'default' }),
    );
    expect(missing).toMatchObject({ code: 404, reason: 'NotFound', message: 'configmaps "nope" not found' });
    const cm = await core.readNamespacedConfigMap({ name: 'cm-1', namespace: 'default' });
    await core.replaceNamespacedConfigMap({
      name: 'cm-1',
      namespace: 'default',
      body: { ...cm, data: { a: '2' } },
    });
    const stale = await expectStatus(() =>
      core.replaceNamespacedConfigMap({
        name: 'cm-1',
        namespace: 'default',
        body: { ...cm, data: { a: '3' } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(stale.message).toBe(
      'Operation cannot be fulfilled on configmaps "cm-1": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect((await core.readNamespacedConfigMap({ name: 'cm-1', namespace: 'default' })).data).toEqual({
      a: '2',
    });
  });

  it('rejects names that are not DNS-1123 and objects in missing namespaces', async () => {
    const bad = await expectStatus(() =>
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'Bad_Name' } } }),
    );
    expect(bad.code).toBe(422);
    expect(bad.reason).toBe('Invalid');
    expect(bad.message).toMatch(
      /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    const noNs = await expectStatus(() =>
      core.createNamespacedConfigMap({ namespace: 'ghost', body: { metadata: { name: 'x' } } }),
    );
    expect(noNs).toMatchObject({ code: 404, message: 'namespaces "ghost" not found' });
  });

  it('bumps generation only on spec changes and keeps status out of main-resource writes', async () => {
    const d = await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'web' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'app', image: 'nginx' }] },
          },
        },
        status: { replicas: 99 },
      },
    });
    expect(d.metadata?.generation).toBe(1);
    expect(d.status?.replicas).toBeUndefined();
    const labelled = await apps.patchNamespacedDeployment(
      { name: 'web', namespace: 'default', body: { metadata: { labels: { a: 'b' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(labelled.metadata?.generation).toBe(1);
    const status = await apps.patchNamespacedDeploymentStatus(
      { name: 'web', namespace: 'default', body: { status: { replicas: 3 }, spec: { replicas: 7 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(status.status?.replicas).toBe(3);
    expect(status.spec?.replicas).toBe(1);
    const scaled = await apps.patchNamespacedDeployment(
      { name: 'web', namespace: 'default', body: { spec: { replicas: 2 }, status: { replicas: 0 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(scaled.metadata?.generation).toBe(2);
    expect(scaled.status?.replicas).toBe(3);
  });

  it('does not bump resourceVersion for a no-op update', async () => {
    const cm = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'noop' }, data: { a: '1' } },
    });
    const again = await core.replaceNamespacedConfigMap({ name: 'noop', namespace: 'default', body: cm });
    expect(again.metadata?.resourceVersion).toBe(cm.metadata?.resourceVersion);
  });

  it('holds an object with finalizers until they are removed', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'fin', finalizers: ['example.com/hold'] } },
    });
    await core.deleteNamespacedConfigMap({ name: 'fin', namespace: 'default' });
    const held = await core.readNamespacedConfigMap({ name: 'fin', namespace: 'default' });
    expect(held.metadata?.deletionTimestamp).toBeTruthy();
    const added = await expectStatus(() =>
      core.patchNamespacedConfigMap(
        {
          name: 'fin',
          namespace: 'default',
          body: { metadata: { finalizers: ['example.com/hold', 'example.com/more'] } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    expect(added.message).toContain('no new finalizers can be added if the object is being deleted');
    await core.patchNamespacedConfigMap(
      { name: 'fin', namespace: 'default', body: [{ op: 'remove', path: '/metadata/finalizers' }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    await expectStatus(() => core.readNamespacedConfigMap({ name: 'fin', namespace: 'default' }));
  });

  it('keeps a pod on a node until deleted with grace 0, and deletes unscheduled pods at once', async () => {
    await core.createNamespacedPod({
      namespace: 'default',
      body: pod('on-node', { spec: { nodeName: 'n1' } }),
    });
    await core.deleteNamespacedPod({ name: 'on-node', namespace: 'default' });
    const terminating = await core.readNamespacedPod({ name: 'on-node', namespace: 'default' });
    expect(terminating.metadata?.deletionGracePeriodSeconds).toBe(30);
    await core.deleteNamespacedPod({ name: 'on-node', namespace: 'default', gracePeriodSeconds: 0 });
    expect(
      (await expectStatus(() => core.readNamespacedPod({ name: 'on-node', namespace: 'default' }))).code,
    ).toBe(404);
    await core.createNamespacedPod({ namespace: 'default', body: pod('floating') });
    await core.deleteNamespacedPod({ name: 'floating', namespace: 'default' });
    expect(
      (await expectStatus(() => core.readNamespacedPod({ name: 'floating', namespace: 'default' }))).code,
    ).toBe(404);
  });

  it('collects dependents in the background and removes a namespace with its contents', async () => {
    await core.createNamespace({ body: { metadata: { name: 'gc' } } });
    const owner = await core.createNamespacedConfigMap({
      namespace: 'gc',
      body: { metadata: { name: 'owner' } },
    });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! };
    await core.createNamespacedSecret({
      namespace: 'gc',
      body: { metadata: { name: 'dep', ownerReferences: [ref] } },
    });
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: 'gc' });
    await eventually(
      async () =>
        (await expectStatus(() => core.readNamespacedSecret({ name: 'dep', namespace: 'gc' }))).code === 404,
    );
    await core.createNamespacedSecret({ namespace: 'gc', body: { metadata: { name: 'left' } } });
    await core.createNamespacedSecret({
      namespace: 'gc',
      body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } },
    });
    await core.deleteNamespace({ name: 'gc' });
    await eventually(
      async () =>
        (await expectStatus(() => core.readNamespacedSecret({ name: 'left', namespace: 'gc' }))).code === 404,
    );
    expect((await core.readNamespace({ name: 'gc' })).status?.phase).toBe('Terminating');
    const creating = await expectStatus(() =>
      core.createNamespacedSecret({ namespace: 'gc', body: { metadata: { name: 'late' } } }),
    );
    expect(creating.code).toBe(403);
    expect(creating.message).toContain(
      'unable to create new content in namespace gc because it is being terminated',
    );
    await core.patchNamespacedSecret(
      { name: 'held', namespace: 'gc', body: { metadata: { finalizers: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await eventually(async () => (await expectStatus(() => core.readNamespace({ name: 'gc' }))).code === 404);
  });

  it('rejects bad JSON, wrong kinds and wrong apiVersions with 400', async () => {
    const broken = await rawRequest(cp, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: '{"metadata": {',
    });
    expect(broken.code).toBe(400);
    expect(broken.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(broken.body.message).toMatch(/^the request body is not valid JSON/);
    const empty = await rawRequest(cp, 'POST', '/api/v1/namespaces/default/configmaps', { body: '' });
    expect(empty.body.message).toBe('the body of the request was empty');
    const kind = await expectStatus(() =>
      core.createNamespacedConfigMap({
        namespace: 'default',
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' } } as any,
      }),
    );
    expect(kind).toMatchObject({
      code: 400,
      message: 'the kind in the data (Secret) does not match the expected kind (ConfigMap)',
    });
    const version = await expectStatus(() =>
      core.createNamespacedConfigMap({
        namespace: 'default',
        body: { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'k' } },
      }),
    );
    expect(version).toMatchObject({
      code: 400,
      message: 'the API version in the data (v2) does not match the expected API version (v1)',
    });
  });

  it('applies server-side dry runs without storing', async () => {
    const dry = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'dry' } },
      dryRun: 'All',
    });
    expect(dry.metadata?.name).toBe('dry');
    expect(
      (await expectStatus(() => core.readNamespacedConfigMap({ name: 'dry', namespace: 'default' }))).code,
    ).toBe(404);
  });
});

describe('reads', () => {
  beforeAll(async () => {
    await core.createNamespace({ body: { metadata: { name: 'reads' } } });
    for (let i = 0; i < 7; i++) {
      await core.createNamespacedPod({
        namespace: 'reads',
        body: pod(`p${i}`, {
          metadata: { labels: { tier: i % 2 ? 'odd' : 'even', idx: String(i) } },
          spec: { nodeName: i < 3 ? 'node-a' : 'node-b' },
        }),
      });
    }
  });

  it('filters by label selectors of every form', async () => {
    const names = async (labelSelector: string) =>
      (await core.listNamespacedPod({ namespace: 'reads', labelSelector })).items
        .map((p) => p.metadata?.name)
        .sort();
    expect(await names('tier=odd')).toEqual(['p1', 'p3', 'p5']);
    expect(await names('tier==even,idx!=0')).toEqual(['p2', 'p4', 'p6']);
    expect(await names('idx in (1,2)')).toEqual(['p1', 'p2']);
    expect(await names('idx notin (1,2),tier=odd')).toEqual(['p3', 'p5']);
    expect(await names('!missing,idx')).toHaveLength(7);
    expect(await names('missing')).toEqual([]);
  });

  it('filters by field selectors and refuses unknown fields', async () => {
    const onA = await core.listNamespacedPod({ namespace: 'reads', fieldSelector: 'spec.nodeName=node-a' });
    expect(onA.items.map((p) => p.metadata?.name).sort()).toEqual(['p0', 'p1', 'p2']);
    const byName = await core.listPodForAllNamespaces({
      fieldSelector: 'metadata.name=p4,metadata.namespace=reads',
    });
    expect(byName.items).toHaveLength(1);
    const bad = await expectStatus(() =>
      core.listNamespacedPod({ namespace: 'reads', fieldSelector: 'spec.image=x' }),
    );
    expect(bad).toMatchObject({ code: 400, message: 'field label not supported: spec.image' });
  });

  it('pages with limit and continue', async () => {
    const seen: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNamespacedPod({ namespace: 'reads', limit: 3, _continue: cont });
      seen.push(...page.items.map((p) => p.metadata!.name!));
      cont = page.metadata?._continue;
      pages++;
    } while (cont);
    expect(pages).toBe(3);
    expect(seen).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
  });
});
