import { AppsV1Api, CoreV1Api, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { eventually, expectStatus, kubeConfigFor, startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';
import { createNode } from './nodes.ts';

const ROOT = '/srv/kruise-test/local-path';

const claim = (
  name: string,
  extra: Partial<V1PersistentVolumeClaim['metadata']> = {},
): V1PersistentVolumeClaim => ({
  metadata: { name, ...extra },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});

describe('storage: claims, volumes and the local-path class', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  let dispose: () => void;

  const readClaim = (name: string) =>
    core.readNamespacedPersistentVolumeClaim({ name, namespace: 'default' });
  const podWith = (name: string, claimName: string) => ({
    metadata: { name },
    spec: {
      containers: [{ name: 'c', image: 'nginx', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
    },
  });
  const podScheduled = async (name: string) =>
    (await core.readNamespacedPod({ name, namespace: 'default' })).status?.conditions?.find(
      (c) => c.type === 'PodScheduled',
    );

  beforeAll(async () => {
    cp = await startControlPlane({ localPathRoot: ROOT });
    const kc = kubeConfigFor(cp);
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
    ({ kubectl, dispose } = kubectlFor(cp));
    await createNode(core, 'disk-node');
    await createNode(core, 'other-node');
  });
  afterAll(async () => {
    dispose?.();
    await cp?.stop();
  });

  it('serves a default local-path StorageClass that waits for the first consumer', async () => {
    const sc = await eventually(
      async () => (await kubectl(['get', 'storageclass'])).out.match(/local-path.*/)?.[0],
    );
    expect(sc).toMatch(/local-path\s+kruise\.io\/local-path\s+Delete\s+WaitForFirstConsumer\s+false/);
  });

  it('binds a claim to a node-local volume once a pod using it is scheduled, and gives the directory path', async () => {
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'default', body: claim('data') });
    const classed = await eventually(async () => {
      const c = await readClaim('data');
      return c.spec?.storageClassName ? c : undefined;
    });
    expect(classed.spec?.storageClassName).toBe('local-path');
    expect(classed.status?.phase).toBe('Pending');
    expect((await core.listPersistentVolume()).items).toHaveLength(0);

    await core.createNamespacedPod({ namespace: 'default', body: podWith('user', 'data') });
    const bound = await eventually(async () => {
      const c = await readClaim('data');
      return c.status?.phase === 'Bound' ? c : undefined;
    });
    const pod = await core.readNamespacedPod({ name: 'user', namespace: 'default' });
    const node = pod.spec!.nodeName!;
    expect(bound.metadata?.annotations?.['volume.kubernetes.io/selected-node']).toBe(node);
    expect(bound.spec?.volumeName).toBe(`pvc-${bound.metadata?.uid}`);
    expect(bound.status).toMatchObject({ accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } });
    const pv = await core.readPersistentVolume({ name: bound.spec!.volumeName! });
    expect(pv.spec?.hostPath).toEqual({
      path: `${ROOT}/pvc-${bound.metadata?.uid}_default_data`,
      type: 'DirectoryOrCreate',
    });
    expect(pv.spec?.nodeAffinity?.required?.nodeSelectorTerms[0]?.matchExpressions).toEqual([
      { key: 'kubernetes.io/hostname', operator: 'In', values: [node] },
    ]);
    expect(pv.spec).toMatchObject({
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'local-path',
    });
    expect(pv.status?.phase).toBe('Bound');
    const listed = await kubectl(['get', 'pvc', 'data']);
    expect(listed.out).toMatch(
      new RegExp(`data\\s+Bound\\s+pvc-${bound.metadata?.uid}\\s+1Gi\\s+RWO\\s+local-path`),
    );
  });

  it('keeps pods of a bound claim on its node and explains why elsewhere will not do', async () => {
    const bound = await readClaim('data');
    const pv = await core.readPersistentVolume({ name: bound.spec!.volumeName! });
    const node = pv.spec!.nodeAffinity!.required!.nodeSelectorTerms[0]!.matchExpressions![0]!.values![0]!;
    await kubectl(['cordon', node]);
    await core.createNamespacedPod({ namespace: 'default', body: podWith('second', 'data') });
    const pending = await eventually(async () => {
      const c = await podScheduled('second');
      return c?.status === 'False' ? c : undefined;
    });
    expect(pending.message).toBe(
      '0/2 nodes are available: 1 node(s) had volume node affinity conflict, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    );
    await kubectl(['uncordon', node]);
    await eventually(
      async () =>
        (await core.readNamespacedPod({ name: 'second', namespace: 'default' })).spec?.nodeName === node,
    );
  });

  it('reports a missing claim as kube-scheduler does', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: podWith('lost', 'nope') });
    const pending = await eventually(async () => {
      const c = await podScheduled('lost');
      return c?.status === 'False' ? c : undefined;
    });
    expect(pending.message).toBe(
      '0/2 nodes are available: persistentvolumeclaim "nope" not found. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    );
  });

  it("validates claims with kube-apiserver's messages", async () => {
    const bad = await expectStatus(() =>
      core.createNamespacedPersistentVolumeClaim({
        namespace: 'default',
        body: { metadata: { name: 'bad' }, spec: {} },
      }),
    );
    expect(bad.message).toBe(
      'PersistentVolumeClaim "bad" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]',
    );
    const changed = await kubectl([
      'patch',
      'pvc',
      'data',
      '--type=merge',
      '-p',
      '{"spec":{"accessModes":["ReadWriteMany"]}}',
    ]);
    expect(changed.err).toContain(
      'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    );
  });

  it('collects the claims a workload owns with it, and their volumes', async () => {
    const sts = await apps.createNamespacedStatefulSet({
      namespace: 'default',
      body: {
        metadata: { name: 'db' },
        spec: {
          serviceName: 'db',
          replicas: 0,
          selector: { matchLabels: { app: 'db' } },
          template: {
            metadata: { labels: { app: 'db' } },
            spec: { containers: [{ name: 'c', image: 'nginx' }] },
          },
        },
      },
    });
    const owned = claim('data-db-0', {
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: sts.metadata!.uid!, controller: true },
      ],
    });
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'default', body: owned });
    await core.createNamespacedPod({ namespace: 'default', body: podWith('db-0', 'data-db-0') });
    const bound = await eventually(async () => {
      const c = await readClaim('data-db-0');
      return c.status?.phase === 'Bound' ? c : undefined;
    });
    await apps.deleteNamespacedStatefulSet({ name: 'db', namespace: 'default' });
    await eventually(async () => {
      const claims = await core.listNamespacedPersistentVolumeClaim({ namespace: 'default' });
      return !claims.items.some((c) => c.metadata?.name === 'data-db-0');
    });
    await eventually(async () => {
      const volumes = await core.listPersistentVolume();
      return !volumes.items.some((v) => v.metadata?.name === bound.spec?.volumeName);
    });
  });
});
