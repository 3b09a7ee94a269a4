import { KruiseResources } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addNode,
  type DaemonSetEnv,
  daemonSet,
  eventually,
  getDs,
  nodesOf,
  podsOf,
  runUntil,
  startDaemonSetEnv,
} from './harness.ts';

/**
 * Advanced DaemonSet placement against the control plane (nodes as objects, kubelet played by the
 * test): one pod per eligible node, pinned to it by name, with the daemon tolerations; nodes that
 * join, taints and cordons as the native DaemonSet treats them; the status counts.
 */
let env: DaemonSetEnv;
beforeAll(async () => {
  env = await startDaemonSetEnv(['n1', 'n2', 'n3']);
}, 60_000);
afterAll(() => env?.stop());

const create = (obj: KubeObject) => env.client.create(KruiseResources.DaemonSet, obj);
const patchNode = (name: string, patch: Record<string, unknown>) =>
  env.client.mergePatch(Resources.Node, undefined, name, patch);

describe('Advanced DaemonSet placement', () => {
  it('runs one pod per node, pinned by name, with the daemon tolerations, and counts them', async () => {
    await create(daemonSet('every'));
    const ds = await runUntil(env.client, 'every', (pods, ds) =>
      pods.length === 3 && ds.status?.numberAvailable === 3 ? ds : undefined,
    );
    expect(ds.status).toMatchObject({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberReady: 3,
      numberAvailable: 3,
      updatedNumberScheduled: 3,
      numberMisscheduled: 0,
      numberUnavailable: 0,
    });
    const pods = await podsOf(env.client, 'every');
    expect(nodesOf(pods)).toEqual(['n1', 'n2', 'n3']);
    const pod = pods[0]!;
    expect(pod.metadata?.generateName).toBe('every-');
    expect(pod.metadata?.labels?.['controller-revision-hash']).toBe(ds.status?.updateRevision);
    expect(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: [pod.spec?.nodeName] }] },
      ],
    });
    expect(pod.spec?.tolerations?.map((t) => `${t.key}:${t.effect}`)).toEqual([
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/disk-pressure:NoSchedule',
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/pid-pressure:NoSchedule',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ]);
    const revisions = await env.client.list(Resources.ControllerRevision, { namespace: 'default' });
    const own = revisions.items.filter((r) => r.metadata?.name?.startsWith('every-'));
    expect(own.map((r) => r.metadata?.labels?.['controller-revision-hash'])).toEqual([
      ds.status?.updateRevision,
    ]);
  });

  it('gives a node that joins its pod, keeps a tainted node without one unless tolerated, and runs on a cordoned node', async () => {
    await create(
      daemonSet('joiners', {
        template: {
          metadata: { labels: { app: 'joiners' } },
          spec: {
            nodeSelector: { pool: 'edge' },
            tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'edge', effect: 'NoSchedule' }],
            containers: [{ name: 'main', image: 'busybox:v1' }],
          },
        },
      }),
    );
    await addNode(env.client, 'edge-1', { pool: 'edge' });
    // tainted from the start: a NoSchedule taint keeps new pods off but does not evict running ones
    await addNode(env.client, 'edge-2', { pool: 'edge' }, [{ key: 'gpu', value: 'x', effect: 'NoSchedule' }]);
    await addNode(env.client, 'edge-3', { pool: 'edge' }, [
      { key: 'dedicated', value: 'edge', effect: 'NoSchedule' },
    ]);
    await patchNode('edge-3', { spec: { unschedulable: true } });
    const ds = await runUntil(env.client, 'joiners', async (pods, ds) =>
      ds.status?.numberAvailable === 2 && nodesOf(pods).join() === 'edge-1,edge-3' ? ds : undefined,
    );
    expect(ds.status).toMatchObject({ desiredNumberScheduled: 2, currentNumberScheduled: 2 });
    // a node that gains the label joins; one that loses it loses its pod
    await addNode(env.client, 'edge-4');
    await patchNode('edge-4', { metadata: { labels: { pool: 'edge' } } });
    await patchNode('edge-1', { metadata: { labels: { pool: null } } });
    await runUntil(env.client, 'joiners', (pods, ds) =>
      nodesOf(pods).join() === 'edge-3,edge-4' && ds.status?.desiredNumberScheduled === 2 ? true : undefined,
    );
  });

  it('evicts a pod from a node with a NoExecute taint it does not tolerate, and keeps one it tolerates', async () => {
    await create(daemonSet('evicted'));
    await create(
      daemonSet('tolerant', {
        template: {
          metadata: { labels: { app: 'tolerant' } },
          spec: {
            tolerations: [{ key: 'maintenance', operator: 'Exists', effect: 'NoExecute' }],
            containers: [{ name: 'main', image: 'busybox:v1' }],
          },
        },
      }),
    );
    for (const name of ['evicted', 'tolerant'])
      await runUntil(env.client, name, (pods) => (nodesOf(pods).includes('n2') ? true : undefined));
    await patchNode('n2', { spec: { taints: [{ key: 'maintenance', effect: 'NoExecute' }] } });
    await eventually(async () => !nodesOf(await podsOf(env.client, 'evicted')).includes('n2'));
    expect(nodesOf(await podsOf(env.client, 'tolerant'))).toContain('n2');
    // kubelet finishes the eviction: the pod is gone, and the node counts neither way
    for (const p of await podsOf(env.client, 'evicted', true))
      if (p.metadata?.deletionTimestamp)
        await env.client.delete(Resources.Pod, 'default', p.metadata.name!, { gracePeriodSeconds: 0 });
    const ds = await eventually(async () => {
      const d = await getDs(env.client, 'evicted');
      const st = d.status;
      return st && st.currentNumberScheduled === st.desiredNumberScheduled && st.numberMisscheduled === 0
        ? d
        : undefined;
    });
    // every node but n2 (and the tainted edge nodes of the test before)
    const eligible = (await env.client.list(Resources.Node)).items.filter((n) => !n.spec?.taints?.length);
    expect(ds.status?.desiredNumberScheduled).toBe(eligible.length);
    await patchNode('n2', { spec: { taints: null } });
    await runUntil(env.client, 'evicted', (pods) => (nodesOf(pods).includes('n2') ? true : undefined));
  });
});
