import { CoordinationV1Api, CoreV1Api, V1MicroTime } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { eventually, kubeConfigFor, startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';
import { createNode } from './nodes.ts';

describe('node lifecycle', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let leases: CoordinationV1Api;
  let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  let dispose: () => void;

  /** A kubelet's status heartbeat: Ready=True with a fresh lastHeartbeatTime. */
  async function heartbeat(name: string): Promise<void> {
    const node = await core.readNode({ name });
    const now = new Date();
    node.status!.conditions = [
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      },
    ];
    await core.replaceNodeStatus({ name, body: node });
  }
  const ready = async (name: string) =>
    (await core.readNode({ name })).status?.conditions?.find((c) => c.type === 'Ready');

  beforeAll(async () => {
    // A grace of 3 s: a heartbeat every 400 ms keeps a node Ready even when a loaded machine delays one.
    cp = await startControlPlane({ nodeMonitorGracePeriodMs: 3000, nodeMonitorPeriodMs: 100 });
    const kc = kubeConfigFor(cp);
    core = kc.makeApiClient(CoreV1Api);
    leases = kc.makeApiClient(CoordinationV1Api);
    ({ kubectl, dispose } = kubectlFor(cp));
  });
  afterAll(async () => {
    dispose?.();
    await cp?.stop();
  });

  it('turns a node whose heartbeat stops Ready=Unknown and taints it unreachable, and back once it beats', async () => {
    await createNode(core, 'beating');
    // The marker: a node registered just after it that never beats (listed after it, too).
    await createNode(core, 'silent');
    // Heartbeats every 400 ms until the silent node is Unknown: the controller has then looked past
    // the grace period of both, and the beating node is still Ready and untainted.
    await eventually(
      async () => {
        await heartbeat('beating');
        return (await ready('silent'))?.status === 'Unknown';
      },
      { timeoutMs: 15_000, intervalMs: 400, what: 'node silent to turn Unknown' },
    );
    expect((await ready('beating'))?.status).toBe('True');
    expect((await core.readNode({ name: 'beating' })).spec?.taints).toBeUndefined();

    const unknown = await eventually(async () => {
      const c = await ready('beating');
      return c?.status === 'Unknown' ? c : undefined;
    }, 15_000);
    expect(unknown).toMatchObject({
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
    });
    const tainted = await eventually(async () => {
      const taints = (await core.readNode({ name: 'beating' })).spec?.taints ?? [];
      return taints.length === 2 ? taints : undefined;
    });
    expect(tainted.map((t) => `${t.key}:${t.effect}`)).toEqual([
      'node.kubernetes.io/unreachable:NoSchedule',
      'node.kubernetes.io/unreachable:NoExecute',
    ]);
    expect(tainted[1]?.timeAdded).toBeDefined();
    const listed = await kubectl(['get', 'node', 'beating']);
    expect(listed.out).toMatch(/beating\s+NotReady\s+/);
    const described = await kubectl(['describe', 'node', 'beating']);
    expect(described.out).toContain('node.kubernetes.io/unreachable:NoExecute');

    await heartbeat('beating');
    await eventually(async () => (await core.readNode({ name: 'beating' })).spec?.taints === undefined);
    expect((await ready('beating'))?.status).toBe('True');
  }, 30_000);

  it('counts a renewed Lease in kube-node-lease as a heartbeat', async () => {
    await createNode(core, 'leased');
    await leases.createNamespacedLease({
      namespace: 'kube-node-lease',
      body: {
        metadata: { name: 'leased' },
        spec: { holderIdentity: 'leased', leaseDurationSeconds: 40, renewTime: new V1MicroTime() },
      },
    });
    // The marker: a node registered after it with neither heartbeats nor a Lease (listed after it, too).
    await createNode(core, 'unleased');
    // The Lease renewed every 400 ms until the other node is Unknown: past the grace period after
    // the last status heartbeat, the Lease alone kept it Ready.
    await eventually(
      async () => {
        const lease = await leases.readNamespacedLease({ name: 'leased', namespace: 'kube-node-lease' });
        lease.spec!.renewTime = new V1MicroTime();
        await leases.replaceNamespacedLease({ name: 'leased', namespace: 'kube-node-lease', body: lease });
        return (await ready('unleased'))?.status === 'Unknown';
      },
      { timeoutMs: 15_000, intervalMs: 400, what: 'node unleased to turn Unknown' },
    );
    expect((await ready('leased'))?.status).toBe('True');
  }, 30_000);

  it('deletes the pods of a deleted node', async () => {
    await createNode(core, 'doomed');
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'orphan' },
        spec: { nodeName: 'doomed', containers: [{ name: 'c', image: 'nginx' }] },
      },
    });
    await core.deleteNode({ name: 'doomed' });
    await eventually(async () => {
      const pods = await core.listNamespacedPod({
        namespace: 'default',
        fieldSelector: 'spec.nodeName=doomed',
      });
      return pods.items.length === 0;
    });
  });
});
