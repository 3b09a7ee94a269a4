import type { CriClient } from '@kruise/cri/client';
import { isNotFound, type KubeClient, type KubeObject, Resources, streamWatch } from '@kruise/runtime';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { useLocalNode } from '../support/local-node-env.ts';
import { until } from '../support/poll.ts';

const registry = inject('registry');
const env = useLocalNode('ln-resources');
let client: KubeClient;
let cri: CriClient;
beforeAll(() => {
  ({ client, cri } = env);
});

const getPod = (name: string) => client.get(Resources.Pod, 'default', name);
const app = (p: KubeObject) => p.status?.containerStatuses?.find((s: any) => s.name === 'app');
/** A cgroup file as the container itself sees it. */
const cgroup = async (file: string, pod = 'sized') => {
  const id = app(await getPod(pod)).containerID.replace('containerd://', '');
  const res = await cri.execSync(id, ['cat', `/sys/fs/cgroup/${file}`], 5);
  return Buffer.from(res.stdout ?? [])
    .toString()
    .trim();
};
const condition = (p: KubeObject, type: string) => p.status?.conditions?.find((c: any) => c.type === type);
const CPU_IN_PLACE = [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }];
/** Creates a busybox pod on the node with these resources (cpu resizes in place by default); resolves once it runs. */
const runSizedPod = async (
  name: string,
  resources: Record<string, Record<string, string>>,
  resizePolicy: { resourceName: string; restartPolicy: string }[] = CPU_IN_PLACE,
) => {
  await client.create(Resources.Pod, {
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: 'ln-resources',
      terminationGracePeriodSeconds: 2,
      containers: [
        {
          name: 'app',
          image: `${registry}/busybox:v1`,
          command: ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 0.2; done"],
          resources,
          resizePolicy,
        },
      ],
    },
  });
  return until(async () => {
    const p = await getPod(name);
    return app(p)?.state.running ? p : undefined;
  });
};
/** A running pod with the given cpu requests/limits. */
const runCpuPod = (name: string, requests: string, limits: string) =>
  runSizedPod(name, { requests: { cpu: requests }, limits: { cpu: limits } });
const deletePod = async (name: string) => {
  await client.delete(Resources.Pod, 'default', name);
  await until(() =>
    getPod(name).then(
      () => undefined,
      (err) => (isNotFound(err) ? true : Promise.reject(err)),
    ),
  );
};
const resize = (resources: Record<string, unknown>, pod = 'sized') =>
  client.request('PATCH', `/api/v1/namespaces/default/pods/${pod}/resize`, {
    body: { spec: { containers: [{ name: 'app', resources }] } },
    contentType: 'application/strategic-merge-patch+json',
  });

describe('resources', () => {
  it('reports capacity and allocatable on the Node', async () => {
    const n = await client.get(Resources.Node, undefined, 'ln-resources');
    expect(n.status.capacity).toMatchObject({
      cpu: expect.stringMatching(/^\d+$/),
      memory: expect.stringMatching(/^\d+Ki$/),
      pods: '110',
    });
    expect(n.status.allocatable).toEqual(n.status.capacity);
  });

  it('gives the runtime cpu shares, CFS quota and the memory limit; resizes in place per resizePolicy; an infeasible resize waits', async () => {
    const first = await runSizedPod(
      'sized',
      { requests: { cpu: '100m', memory: '32Mi' }, limits: { cpu: '200m', memory: '64Mi' } },
      [...CPU_IN_PLACE, { resourceName: 'memory', restartPolicy: 'RestartContainer' }],
    );
    expect(first.status.qosClass).toBe('Burstable');
    expect(app(first).allocatedResources).toEqual({ cpu: '100m', memory: '32Mi' });
    expect(app(first).resources).toEqual({
      requests: { cpu: '100m', memory: '32Mi' },
      limits: { cpu: '200m', memory: '64Mi' },
    });
    expect(await cgroup('cpu/cpu.shares')).toBe('102');
    expect(await cgroup('cpu/cpu.cfs_period_us')).toBe('100000');
    expect(await cgroup('cpu/cpu.cfs_quota_us')).toBe('20000');
    expect(await cgroup('memory/memory.limit_in_bytes')).toBe(String(64 * 1024 * 1024));

    // cpu: NotRequired — applied to the running container, no restart.
    await resize({ requests: { cpu: '300m' }, limits: { cpu: '400m' } });
    const cpuResized = await until(async () => {
      const p = await getPod('sized');
      return app(p)?.resources?.limits?.cpu === '400m' ? p : undefined;
    });
    expect(app(cpuResized).containerID).toBe(app(first).containerID);
    expect(app(cpuResized).restartCount).toBe(0);
    expect(app(cpuResized).allocatedResources.cpu).toBe('300m');
    expect(await cgroup('cpu/cpu.cfs_quota_us')).toBe('40000');
    expect(await cgroup('cpu/cpu.shares')).toBe('307');

    // memory: RestartContainer — the container is restarted with the new limit.
    await resize({ limits: { memory: '128Mi' }, requests: { memory: '32Mi' } });
    const memResized = await until(async () => {
      const p = await getPod('sized');
      return app(p)?.restartCount === 1 && app(p).state.running ? p : undefined;
    });
    expect(app(memResized).resources.limits.memory).toBe('128Mi');
    expect(await cgroup('memory/memory.limit_in_bytes')).toBe(String(128 * 1024 * 1024));
    expect(await cgroup('cpu/cpu.cfs_quota_us')).toBe('40000');

    // More cpu than the node has: PodResizePending/Infeasible, nothing applied; undone, the condition goes.
    await resize({ requests: { cpu: '1000' }, limits: { cpu: '1000' } });
    const pending = await until(async () => {
      const p = await getPod('sized');
      return p.status.conditions.find((c: any) => c.type === 'PodResizePending') ? p : undefined;
    });
    expect(pending.status.conditions.find((c: any) => c.type === 'PodResizePending')).toMatchObject({
      status: 'True',
      reason: 'Infeasible',
      message: expect.stringMatching(
        /^Node didn't have enough capacity: cpu, requested: 1000000, capacity: \d+$/,
      ),
    });
    expect(app(pending).allocatedResources.cpu).toBe('300m');
    expect(await cgroup('cpu/cpu.cfs_quota_us')).toBe('40000');
    await resize({ requests: { cpu: '300m' }, limits: { cpu: '400m' } });
    await until(async () =>
      (await getPod('sized')).status.conditions.some((c: any) => c.type === 'PodResizePending')
        ? undefined
        : true,
    );
    await deletePod('sized');
  }, 60_000);

  it('an accepted resize is PodResizeInProgress until applied; one that does not fit beside the other pods is Deferred, then applied when a pod goes', async () => {
    const node = await client.get(Resources.Node, undefined, 'ln-resources');
    const capacity = Number(node.status.allocatable.cpu) * 1000;
    await runCpuPod('grower', '100m', '200m');

    // Every status the watch delivers: the in-progress condition is seen, then gone once applied.
    const seen: { inProgress: boolean; limit?: string }[] = [];
    const stop = new AbortController();
    const watching = streamWatch(
      client,
      '/api/v1/namespaces/default/pods',
      { fieldSelector: 'metadata.name=grower' },
      (e) =>
        seen.push({
          inProgress: !!condition(e.object, 'PodResizeInProgress'),
          limit: app(e.object)?.resources?.limits?.cpu,
        }),
      stop.signal,
    ).catch(() => undefined);
    await resize({ requests: { cpu: '200m' }, limits: { cpu: '300m' } }, 'grower');
    const applied = await until(async () => {
      const p = await getPod('grower');
      return app(p)?.resources?.limits?.cpu === '300m' && !condition(p, 'PodResizeInProgress')
        ? p
        : undefined;
    });
    stop.abort();
    await watching;
    const firstInProgress = seen.findIndex((s) => s.inProgress);
    expect(firstInProgress).toBeGreaterThanOrEqual(0);
    expect(seen[firstInProgress]!.limit).toBe('200m');
    expect(seen.slice(firstInProgress).some((s) => !s.inProgress && s.limit === '300m')).toBe(true);
    expect(app(applied).allocatedResources.cpu).toBe('200m');
    expect(await cgroup('cpu/cpu.cfs_quota_us', 'grower')).toBe('30000');

    // Another pod takes all but 300m: 400m fits the node, not beside it — Deferred, kubelet's words.
    const filler = capacity - 300;
    await runCpuPod('filler', `${filler}m`, `${filler}m`);
    await resize({ requests: { cpu: '400m' }, limits: { cpu: '500m' } }, 'grower');
    const deferred = await until(async () => {
      const p = await getPod('grower');
      return condition(p, 'PodResizePending') ? p : undefined;
    });
    expect(condition(deferred, 'PodResizePending')).toMatchObject({
      status: 'True',
      reason: 'Deferred',
      message: `Node didn't have enough resource: cpu, requested: 400, used: ${filler}, capacity: ${capacity}`,
    });
    expect(condition(deferred, 'PodResizeInProgress')).toBeUndefined();
    expect(app(deferred).allocatedResources.cpu).toBe('200m');
    expect(await cgroup('cpu/cpu.cfs_quota_us', 'grower')).toBe('30000');

    // The filler goes: the deferred resize is tried again and applied in place.
    await deletePod('filler');
    const resized = await until(async () => {
      const p = await getPod('grower');
      return app(p)?.resources?.limits?.cpu === '500m' && !condition(p, 'PodResizePending') ? p : undefined;
    });
    expect(app(resized).allocatedResources.cpu).toBe('400m');
    expect(app(resized).restartCount).toBe(0);
    expect(await cgroup('cpu/cpu.cfs_quota_us', 'grower')).toBe('50000');
    await deletePod('grower');
  }, 90_000);
});
