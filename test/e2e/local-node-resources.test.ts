import type { CriClient } from '@kruise/cri/client';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { useLocalNode } from '../support/local-node-env.ts';
import { eventually } from '../support/poll.ts';

const registry = inject('registry');
const until = <T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000) =>
  eventually(check, timeoutMs, 100);
const env = useLocalNode('ln-resources');
let client: KubeClient;
let cri: CriClient;
beforeAll(() => {
  ({ client, cri } = env);
});

const getPod = (name: string) => client.get(Resources.Pod, 'default', name);
const app = (p: KubeObject) => p.status?.containerStatuses?.find((s: any) => s.name === 'app');
/** A cgroup file as the container itself sees it. */
const cgroup = async (file: string) => {
  const id = app(await getPod('sized')).containerID.replace('containerd://', '');
  const res = await cri.execSync(id, ['cat', `/sys/fs/cgroup/${file}`], 5);
  return Buffer.from(res.stdout ?? [])
    .toString()
    .trim();
};
const resize = (resources: Record<string, unknown>) =>
  client.request('PATCH', '/api/v1/namespaces/default/pods/sized/resize', {
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
    await client.create(Resources.Pod, {
      metadata: { name: 'sized', namespace: 'default' },
      spec: {
        nodeName: 'ln-resources',
        terminationGracePeriodSeconds: 2,
        containers: [
          {
            name: 'app',
            image: `${registry}/busybox:v1`,
            command: ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 0.2; done"],
            resources: { requests: { cpu: '100m', memory: '32Mi' }, limits: { cpu: '200m', memory: '64Mi' } },
            resizePolicy: [
              { resourceName: 'cpu', restartPolicy: 'NotRequired' },
              { resourceName: 'memory', restartPolicy: 'RestartContainer' },
            ],
          },
        ],
      },
    });
    const first = await until(async () => {
      const p = await getPod('sized');
      return app(p)?.state.running ? p : undefined;
    });
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
  }, 60_000);
});
