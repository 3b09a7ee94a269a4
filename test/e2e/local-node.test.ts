import { ControlPlane } from '@kruise/control-plane';
import { CriClient } from '@kruise/cri/client';
import { LocalNode } from '@kruise/local-node';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../support/poll.ts';

const registry = inject('registry');
const until = <T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000) =>
  eventually(check, timeoutMs, 50);
let cp: ControlPlane;
let client: KubeClient;
let cri: CriClient;
let node: LocalNode;

beforeAll(async () => {
  cp = await ControlPlane.start();
  client = KubeClient.fromString(cp.kubeconfig());
  cri = new CriClient(inject('criSocket'));
  node = new LocalNode({ client, cri, nodeName: 'ln-1', backoffInitialMs: 1000 });
  await node.start();
});
afterAll(async () => {
  for (const p of (await client.list(Resources.Pod, { namespace: 'default' })).items)
    await client.delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 1 });
  await until(async () => (await client.list(Resources.Pod, { namespace: 'default' })).items.length === 0);
  await node.stop();
  cri.close();
  await cp.stop();
});

/** A shell loop that exits at once on SIGTERM (busybox sh as PID 1 ignores it otherwise). */
const loop = ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 0.2; done"];

const pod = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'default' },
  spec: {
    nodeName: 'ln-1',
    terminationGracePeriodSeconds: 5,
    containers: [
      { name: 'app', image: `${registry}/busybox:v1`, command: loop },
      { name: 'sidecar', image: `${registry}/busybox:v2`, command: loop },
    ],
    ...extra,
  },
});

const getPod = (name: string) => client.get(Resources.Pod, 'default', name);
const statusOf = (p: KubeObject, c: string) => p.status?.containerStatuses?.find((s: any) => s.name === c);

describe('local node', () => {
  it('registers a Ready Node with the runtime version', async () => {
    const n = await client.get(Resources.Node, undefined, 'ln-1');
    expect(n.status.conditions.find((c: any) => c.type === 'Ready').status).toBe('True');
    expect(n.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\//);
    expect(n.metadata?.labels?.['kubernetes.io/hostname']).toBe('ln-1');
  });

  it('runs a two-container pod with kubelet labels and reports it Running and Ready', async () => {
    await client.create(Resources.Pod, pod('two'));
    const p = await until(async () => {
      const x = await getPod('two');
      return x.status?.phase === 'Running' &&
        x.status.conditions?.find((c: any) => c.type === 'Ready')?.status === 'True'
        ? x
        : undefined;
    });
    const app = statusOf(p, 'app');
    expect(app.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(app.restartCount).toBe(0);
    expect(app.state.running.startedAt).toMatch(/Z$/);
    const id = app.containerID.replace('containerd://', '');
    const { status } = await cri.containerStatus(id);
    expect(status?.labels).toMatchObject({
      'io.kubernetes.pod.uid': p.metadata?.uid,
      'io.kubernetes.pod.name': 'two',
      'io.kubernetes.pod.namespace': 'default',
      'io.kubernetes.container.name': 'app',
    });
    expect(status?.annotations['io.kubernetes.container.restartCount']).toBe('0');
    expect(status?.annotations['io.kubernetes.pod.terminationGracePeriod']).toBe('5');
  });

  it('restarts a stopped container with attempt + 1 and reports lastState', async () => {
    const before = statusOf(await getPod('two'), 'app');
    await cri.stopContainer(before.containerID.replace('containerd://', ''), 2);
    const after = await until(async () => {
      const s = statusOf(await getPod('two'), 'app');
      return s?.restartCount === 1 && s.state.running ? s : undefined;
    });
    expect(after.containerID).not.toBe(before.containerID);
    expect(after.lastState.terminated).toMatchObject({ exitCode: 0, containerID: before.containerID });
    expect(statusOf(await getPod('two'), 'sidecar').restartCount).toBe(0);
    const { status } = await cri.containerStatus(after.containerID.replace('containerd://', ''));
    expect(status?.annotations['io.kubernetes.container.restartCount']).toBe('1');
    // the old container is removed
    await expect(cri.containerStatus(before.containerID.replace('containerd://', ''))).rejects.toThrow(
      /not found/i,
    );
  });

  it('keeps a pod with the KruisePodReady gate unready until the condition is True', async () => {
    await client.create(
      Resources.Pod,
      pod('gated', { readinessGates: [{ conditionType: 'KruisePodReady' }] }),
    );
    const p = await until(async () => {
      const x = await getPod('gated');
      return x.status?.conditions?.find((c: any) => c.type === 'ContainersReady')?.status === 'True'
        ? x
        : undefined;
    });
    expect(p.status.conditions.find((c: any) => c.type === 'Ready').status).toBe('False');
    await client.request('PATCH', '/api/v1/namespaces/default/pods/gated/status', {
      body: { status: { conditions: [{ type: 'KruisePodReady', status: 'True' }] } },
      contentType: 'application/strategic-merge-patch+json',
    });
    await until(
      async () =>
        (await getPod('gated')).status.conditions.find((c: any) => c.type === 'Ready')?.status === 'True',
    );
  });

  it('deletes a pod gracefully: preStop runs, containers stop, the pod goes away', async () => {
    const spec = pod('bye');
    (spec.spec.containers[0] as any).lifecycle = {
      preStop: { exec: { command: ['sh', '-c', 'sleep 1; touch /tmp/x'] } },
    };
    await client.create(Resources.Pod, spec);
    const p = await until(async () =>
      (await getPod('bye')).status?.phase === 'Running' ? getPod('bye') : undefined,
    );
    const started = Date.now();
    await client.delete(Resources.Pod, 'default', 'bye');
    await until(async () => {
      try {
        await getPod('bye');
        return undefined;
      } catch {
        return true;
      }
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const { containers } = await cri.listContainers({
      labelSelector: { 'io.kubernetes.pod.uid': p.metadata?.uid },
    });
    expect(containers).toEqual([]);
  });
});
