import { KruiseResources } from '@kruise/api';
import { Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addNodes,
  type BroadcastJobEnv,
  broadcastJob,
  eventually,
  getJob,
  node,
  pinnedNode,
  podsOf,
  setPhase,
  startBroadcastJobEnv,
} from './harness.ts';

/**
 * Which nodes a BroadcastJob runs on, as nodes come, change and fill up: taints and cordons keep
 * its pods off unless tolerated, a node that stops fitting loses its pod, a node that starts
 * fitting (a taint removed, a label added — #1199) or joins (completion Never) gets one. Each test
 * has its own pool of nodes, selected by the job's nodeSelector.
 */
let env: BroadcastJobEnv;
beforeAll(async () => {
  env = await startBroadcastJobEnv();
});
afterAll(() => env?.stop());

const create = (job: ReturnType<typeof broadcastJob>) => env.client.create(KruiseResources.BroadcastJob, job);
const pool = (name: string) => ({ nodeSelector: { pool: name } });
const nodesOf = async (job: string) => (await podsOf(env.client, job)).map(pinnedNode).sort();
const nodesWhen = (job: string, expected: string[]) =>
  eventually(async () => JSON.stringify(await nodesOf(job)) === JSON.stringify(expected), 10_000);
const statusOf = async (name: string) => (await getJob(env.client, name))?.status;
const patchNode = (name: string, patch: object) =>
  env.client.mergePatch(Resources.Node, undefined, name, patch);
const NO_SCHEDULE = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };

describe('BroadcastJob placement', () => {
  it('keeps pods off tainted and cordoned nodes unless the template tolerates them', async () => {
    await addNodes(
      env.client,
      node('t1', { pool: 'taint' }),
      node('t2', { pool: 'taint' }, { taints: [NO_SCHEDULE] }),
      node('t3', { pool: 'taint' }, { unschedulable: true }),
    );
    await create(broadcastJob('plain', {}, pool('taint')));
    await nodesWhen('plain', ['t1']);
    await eventually(async () => (await statusOf('plain'))?.desired === 1);
    await create(
      broadcastJob(
        'tolerant',
        {},
        {
          ...pool('taint'),
          tolerations: [
            { key: 'dedicated', operator: 'Exists' },
            { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
          ],
        },
      ),
    );
    await nodesWhen('tolerant', ['t1', 't2', 't3']);
  });

  it('creates the pod on a node once its taint is removed or its labels start to match (#1199)', async () => {
    await addNodes(
      env.client,
      node('u1', { pool: 'untaint' }, { taints: [NO_SCHEDULE] }),
      node('u2', { pool: 'other' }),
    );
    await create(broadcastJob('later', { completionPolicy: { type: 'Never' } }, pool('untaint')));
    await eventually(async () => (await statusOf('later'))?.phase === 'running');
    expect(await nodesOf('later')).toEqual([]);
    await patchNode('u1', { spec: { taints: null } });
    await nodesWhen('later', ['u1']);
    await patchNode('u2', { metadata: { labels: { pool: 'untaint' } } });
    await nodesWhen('later', ['u1', 'u2']);
  });

  it('deletes the pod of a node that no longer fits (a NoExecute taint, a label gone)', async () => {
    await addNodes(env.client, node('x1', { pool: 'leave' }), node('x2', { pool: 'leave' }));
    await create(broadcastJob('leaving', {}, pool('leave')));
    await nodesWhen('leaving', ['x1', 'x2']);
    await patchNode('x1', { spec: { taints: [{ key: 'evict', effect: 'NoExecute' }] } });
    await nodesWhen('leaving', ['x2']);
    await patchNode('x2', { metadata: { labels: { pool: null } } });
    await nodesWhen('leaving', []);
    const events = (await env.client.list(Resources.Event, { namespace: 'default' })).items as {
      involvedObject?: { name?: string };
      reason?: string;
    }[];
    expect(
      events.filter((e) => e.involvedObject?.name === 'leaving' && e.reason === 'SuccessfulDelete'),
    ).toHaveLength(2);
  });

  it('with completion Never, never completes and gives a node that joins later its pod', async () => {
    await addNodes(env.client, node('n1', { pool: 'never' }));
    await create(broadcastJob('forever', { completionPolicy: { type: 'Never' } }, pool('never')));
    const [pod] = await eventually(async () => {
      const pods = await podsOf(env.client, 'forever');
      return pods.length === 1 ? pods : undefined;
    });
    await setPhase(env.client, pod!, 'Succeeded');
    await eventually(async () => (await statusOf('forever'))?.succeeded === 1);
    expect((await statusOf('forever'))?.phase).toBe('running');
    await addNodes(env.client, node('n2', { pool: 'never' }));
    await nodesWhen('forever', ['n1', 'n2']);
    expect((await statusOf('forever'))?.conditions ?? []).toEqual([]);
  });

  it('puts a pod on every node whose allocatable fits it, busy or not (it waits there for room), none on one too small', async () => {
    const small = node('r1', { pool: 'room' });
    small.status!.allocatable = { cpu: '1', memory: '1Gi', pods: '110' };
    await addNodes(env.client, small, node('r2', { pool: 'room' }));
    // a pod already on r2 holds 3.5 of its 4 CPUs: the job's pod goes there all the same, as upstream
    await env.client.create(Resources.Pod, {
      metadata: { name: 'hog', namespace: 'default' },
      spec: {
        nodeName: 'r2',
        containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '3500m' } } }],
      },
    });
    const requests = {
      containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu: '2' } } }],
    };
    await create(broadcastJob('big', {}, { ...pool('room'), ...requests }));
    await nodesWhen('big', ['r2']);
    const status = await eventually(async () => {
      const s = await statusOf('big');
      return s?.desired === 1 ? s : undefined;
    });
    // not complete: the pod on the busy node has not run yet
    expect(status.phase).toBe('running');
    await env.client.delete(Resources.Pod, 'default', 'hog', { gracePeriodSeconds: 0 });
  });
});
