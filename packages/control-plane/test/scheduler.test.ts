import { AppsV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { eventually, expectStatus, kubeConfigFor, startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';
import { createNode } from './nodes.ts';

const pod = (name: string, spec: Partial<V1Pod['spec']> = {}, labels?: Record<string, string>): V1Pod => ({
  metadata: { name, labels },
  spec: { containers: [{ name: 'c', image: 'nginx:1.25' }], ...spec },
});

describe('the scheduler', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  let dispose: () => void;

  const read = (name: string, namespace = 'default') => core.readNamespacedPod({ name, namespace });
  const scheduled = (p: V1Pod) => p.status?.conditions?.find((c) => c.type === 'PodScheduled');

  beforeAll(async () => {
    cp = await startControlPlane();
    core = kubeConfigFor(cp).makeApiClient(CoreV1Api);
    ({ kubectl, dispose } = kubectlFor(cp));
    await createNode(core, 'node-a', { labels: { zone: 'a' } });
    await createNode(core, 'node-gpu', {
      labels: { zone: 'a' },
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
    });
    await createNode(core, 'node-down', { labels: { zone: 'b' }, ready: 'False' });
  });
  afterAll(async () => {
    dispose?.();
    await cp?.stop();
  });

  it('binds a pending pod that required node affinity admits (matchFields and matchExpressions)', async () => {
    const res = await kubectl(
      ['apply', '-f', '-'],
      `apiVersion: v1
kind: Pod
metadata: {name: pinned}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: zone, operator: In, values: [a]}]
          matchFields: [{key: metadata.name, operator: NotIn, values: [node-a]}]
  tolerations: [{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}]
  containers: [{name: c, image: nginx:1.25}]
`,
    );
    expect(res.code).toBe(0);
    const bound = await eventually(async () => {
      const p = await read('pinned');
      return p.spec?.nodeName ? p : undefined;
    });
    expect(bound.spec?.nodeName).toBe('node-gpu');
    expect(scheduled(bound)).toMatchObject({ status: 'True' });
    const wide = await kubectl(['get', 'pod', 'pinned', '-o', 'wide']);
    expect(wide.out).toMatch(/pinned\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+node-gpu/);
  });

  it("marks an unschedulable pod with kube-scheduler's message and binds it once a node fits", async () => {
    await core.createNamespacedPod({
      namespace: 'default',
      body: pod('waiting', { nodeSelector: { zone: 'b' } }),
    });
    const pending = await eventually(async () => {
      const p = await read('waiting');
      return scheduled(p)?.status === 'False' ? p : undefined;
    });
    expect(scheduled(pending)).toMatchObject({
      reason: 'Unschedulable',
      message:
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    });
    const described = await kubectl(['describe', 'pod', 'waiting']);
    expect(described.out).toMatch(/PodScheduled\s+False/);
    expect(described.out).toMatch(
      /Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/3 nodes are available: 1 node\(s\) didn't match/,
    );

    await createNode(core, 'node-b', { labels: { zone: 'b' } });
    const bound = await eventually(async () => {
      const p = await read('waiting');
      return p.spec?.nodeName ? p : undefined;
    });
    expect(bound.spec?.nodeName).toBe('node-b');
    expect(scheduled(bound)).toMatchObject({ status: 'True' });
    expect(scheduled(bound)?.reason).toBeUndefined();
  });

  it('counts CPU and memory requests against allocatable and host ports per node', async () => {
    await core.createNamespace({ body: { metadata: { name: 'fit' } } });
    await createNode(core, 'small', { labels: { pool: 'small' }, cpu: '1', memory: '1Gi' });
    const sel = { nodeSelector: { pool: 'small' } };
    const requests = (cpu: string, memory: string, hostPort?: number) => ({
      containers: [
        {
          name: 'c',
          image: 'nginx:1.25',
          resources: { requests: { cpu, memory } },
          ports: hostPort ? [{ containerPort: 80, hostPort }] : [],
        },
      ],
    });
    await core.createNamespacedPod({
      namespace: 'fit',
      body: pod('first', { ...sel, ...requests('600m', '512Mi', 8080) }),
    });
    await eventually(async () => (await read('first', 'fit')).spec?.nodeName);
    await core.createNamespacedPod({
      namespace: 'fit',
      body: pod('second', { ...sel, ...requests('600m', '768Mi') }),
    });
    const second = await eventually(async () => {
      const p = await read('second', 'fit');
      return scheduled(p)?.status === 'False' ? p : undefined;
    });
    expect(scheduled(second)?.message).toBe(
      "0/5 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 1 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.",
    );
    await core.createNamespacedPod({
      namespace: 'fit',
      body: pod('third', { ...sel, ...requests('100m', '64Mi', 8080) }),
    });
    const third = await eventually(async () => {
      const p = await read('third', 'fit');
      return scheduled(p)?.status === 'False' ? p : undefined;
    });
    expect(scheduled(third)?.message).toContain(
      "1 node(s) didn't have free ports for the requested pod ports",
    );
    // Freeing the node lets both in (700m and 832Mi fit): the deletion retries the waiting pods.
    await core.deleteNamespacedPod({ name: 'first', namespace: 'fit', gracePeriodSeconds: 0 });
    const next = await eventually(async () => {
      const [s, t] = [await read('second', 'fit'), await read('third', 'fit')];
      return s.spec?.nodeName && t.spec?.nodeName ? [s, t] : undefined;
    });
    expect(next.map((p) => p.spec?.nodeName)).toEqual(['small', 'small']);
  });

  it('spreads the pods of one controller over equal nodes', async () => {
    await core.createNamespace({ body: { metadata: { name: 'spread' } } });
    for (const n of ['s1', 's2', 's3']) await createNode(core, n, { labels: { pool: 'spread' } });
    const rs = await kubeConfigFor(cp)
      .makeApiClient(AppsV1Api)
      .createNamespacedReplicaSet({
        namespace: 'spread',
        body: {
          metadata: { name: 'rs' },
          spec: {
            replicas: 0,
            selector: { matchLabels: { app: 'rs' } },
            template: {
              metadata: { labels: { app: 'rs' } },
              spec: { containers: [{ name: 'c', image: 'nginx' }] },
            },
          },
        },
      });
    const owner = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'rs',
      uid: rs.metadata!.uid!,
      controller: true,
    };
    for (let i = 0; i < 6; i++) {
      const p = pod(`p${i}`, { nodeSelector: { pool: 'spread' } });
      p.metadata!.ownerReferences = [owner];
      await core.createNamespacedPod({ namespace: 'spread', body: p });
    }
    const pods = await eventually(async () => {
      const list = await core.listNamespacedPod({ namespace: 'spread' });
      return list.items.length === 6 && list.items.every((p) => p.spec?.nodeName) ? list.items : undefined;
    });
    const perNode = new Map<string, number>();
    for (const p of pods) perNode.set(p.spec!.nodeName!, (perNode.get(p.spec!.nodeName!) ?? 0) + 1);
    expect([...perNode.values()]).toEqual([2, 2, 2]);
  });

  it('leaves pods of other schedulers alone and binds them through pods/binding', async () => {
    await core.createNamespacedPod({
      namespace: 'default',
      body: pod('custom', { schedulerName: 'my-scheduler' }),
    });
    await cp.controllers.scheduler!.drained();
    expect((await read('custom')).spec?.nodeName).toBeUndefined();
    await core.createNamespacedPodBinding({
      name: 'custom',
      namespace: 'default',
      body: {
        metadata: { name: 'custom', annotations: { 'bound-by': 'my-scheduler' } },
        target: { kind: 'Node', name: 'node-a' },
      },
    });
    const bound = await read('custom');
    expect(bound.spec?.nodeName).toBe('node-a');
    expect(bound.metadata?.annotations?.['bound-by']).toBe('my-scheduler');
    const again = await expectStatus(() =>
      core.createNamespacedPodBinding({
        name: 'custom',
        namespace: 'default',
        body: { metadata: { name: 'custom' }, target: { name: 'node-b' } },
      }),
    );
    expect(again).toMatchObject({
      code: 409,
      message:
        'Operation cannot be fulfilled on pods/binding "custom": pod custom is already assigned to node "node-a"',
    });
    const missing = await expectStatus(() =>
      core.createNamespacedPodBinding({
        name: 'custom',
        namespace: 'default',
        body: { metadata: { name: 'custom' }, target: {} } as any,
      }),
    );
    expect(missing).toMatchObject({
      code: 422,
      message: 'Binding "custom" is invalid: target.name: Required value',
    });
  });
});

describe('the scheduler turned off', () => {
  it('leaves pending pods unbound and untouched', async () => {
    const cp = await startControlPlane({ scheduler: false });
    try {
      const core = kubeConfigFor(cp).makeApiClient(CoreV1Api);
      await createNode(core, 'only');
      const created = await core.createNamespacedPod({ namespace: 'default', body: pod('alone') });
      // the marker: a scheduler, were one running after all, would have placed it once its queue drained
      await cp.controllers.scheduler?.drained();
      const p = await core.readNamespacedPod({ name: 'alone', namespace: 'default' });
      expect(p.spec?.nodeName).toBeUndefined();
      expect(p.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    } finally {
      await cp.stop();
    }
  });
});
