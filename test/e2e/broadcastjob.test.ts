import { type BroadcastJob, KruiseResources } from '@kruise/api';
import { isNotFound, type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestNodes, type TestNodes } from '../support/local-nodes.ts';
import { eventually } from '../support/poll.ts';
import { deleteWorkloadsAndPods } from '../support/workload-cleanup.ts';
import { type System, startSystem } from './env.ts';

/**
 * BroadcastJob end to end on three local nodes (kruise-manager, kruise-daemon and a local node as
 * processes on the test containerd, two more local nodes on containerds of their own), pods really
 * run and exit: completion on every node, parallelism, taints and cordons, the failure policies,
 * restartLimit, the deadline, TTL deletion, a node that joins later, and refusals.
 */
const NODE = 'bcj-node';
let sys: System;
let extra: TestNodes;
let late: TestNodes | undefined;
beforeAll(async () => {
  sys = await startSystem(NODE);
  extra = await startTestNodes(sys.client, {
    count: 2,
    base: 'bcj-extra',
    criStackDir: `${inject('criStackDir')}-bcj`,
    registry: sys.registry,
  });
}, 180_000);
afterAll(async () => {
  await deleteWorkloadsAndPods(sys?.client, KruiseResources.BroadcastJob);
  await late?.stop();
  await extra?.stop();
  await sys?.stop();
});

const NODES = () => [NODE, ...extra.nodes.map((n) => n.name)].sort();
/** A BroadcastJob whose pods run `script` in busybox (NODE: the pod's node), restarting `restartPolicy`. */
const job = (name: string, script: string, spec: Record<string, unknown> = {}, restartPolicy = 'Never') =>
  ({
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'BroadcastJob',
    metadata: { name, namespace: 'default' },
    spec: {
      template: {
        spec: {
          restartPolicy,
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'main',
              image: `${sys.registry}/busybox:v1`,
              command: ['sh', '-c', `trap 'exit 0' TERM; ${script}`],
              env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
            },
          ],
        },
      },
      ...spec,
    },
  }) as KubeObject;
const create = (obj: KubeObject) => sys.client.create(KruiseResources.BroadcastJob, obj);
const get = async (name: string): Promise<BroadcastJob | undefined> =>
  (await sys.client.get(KruiseResources.BroadcastJob, 'default', name).catch((err) => {
    if (isNotFound(err)) return undefined;
    throw err;
  })) as BroadcastJob | undefined;
const statusWhen = (
  name: string,
  check: (s: NonNullable<BroadcastJob['status']>) => boolean,
  timeoutMs = 60_000,
) =>
  eventually(
    async () => {
      const s = (await get(name))?.status;
      return s && check(s) ? s : undefined;
    },
    timeoutMs,
    100,
  );
const podsOf = async (name: string, all = false) =>
  (
    await sys.client.list(Resources.Pod, { namespace: 'default', labelSelector: `broadcastjob-name=${name}` })
  ).items.filter((p) => all || !p.metadata?.deletionTimestamp);
const nodesOf = async (name: string) => (await podsOf(name)).map((p) => p.spec?.nodeName).sort();
const patchNode = (name: string, patch: object) =>
  sys.client.mergePatch(Resources.Node, undefined, name, patch);

describe('BroadcastJob on three local nodes', () => {
  it('runs a pod to completion on every node, completes, and is deleted ttlSecondsAfterFinished later', async () => {
    await create(
      job('everywhere', 'echo "ran on $NODE"', { completionPolicy: { ttlSecondsAfterFinished: 2 } }),
    );
    const done = await statusWhen('everywhere', (s) => s.phase === 'completed');
    expect(done).toMatchObject({ desired: 3, succeeded: 3, active: 0, failed: 0 });
    expect(done.conditions?.[0]).toMatchObject({ type: 'Complete', status: 'True' });
    expect(await nodesOf('everywhere')).toEqual(NODES());
    for (const p of await podsOf('everywhere')) expect(p.status?.phase).toBe('Succeeded');
    await eventually(async () => (await get('everywhere')) === undefined, 30_000, 200);
    await eventually(async () => (await podsOf('everywhere', true)).length === 0, 30_000, 200);
  }, 120_000);

  it('with parallelism 1 runs one pod at a time', async () => {
    await create(job('serial', 'sleep 1', { parallelism: 1 }));
    let most = 0;
    const done = await eventually(
      async () => {
        const running = (await podsOf('serial')).filter(
          (p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
        );
        most = Math.max(most, running.length);
        return (await get('serial'))?.status?.phase === 'completed' ? true : undefined;
      },
      90_000,
      100,
    );
    expect(done).toBe(true);
    expect(most).toBe(1);
    expect(await nodesOf('serial')).toEqual(NODES());
  }, 120_000);

  it('puts no pod on a tainted or cordoned node unless the template tolerates it', async () => {
    const [tainted, cordoned] = extra.nodes.map((n) => n.name);
    await patchNode(tainted!, { spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] } });
    await patchNode(cordoned!, { spec: { unschedulable: true } });
    try {
      await create(job('shy', 'true'));
      const done = await statusWhen('shy', (s) => s.phase === 'completed');
      expect(done).toMatchObject({ desired: 1, succeeded: 1 });
      expect(await nodesOf('shy')).toEqual([NODE]);
      const tolerant = job('bold', 'true');
      tolerant.spec.template.spec.tolerations = [
        { key: 'dedicated', operator: 'Exists' },
        { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
      ];
      await create(tolerant);
      await statusWhen('bold', (s) => s.phase === 'completed');
      expect(await nodesOf('bold')).toEqual(NODES());
    } finally {
      await patchNode(tainted!, { spec: { taints: null } });
      await patchNode(cordoned!, { spec: { unschedulable: null } });
    }
  }, 120_000);

  it('fails fast on a failed pod and deletes the active ones', async () => {
    await create(job('fast', `if [ "$NODE" = ${NODE} ]; then exit 1; fi; sleep 60`));
    const failed = await statusWhen('fast', (s) => s.phase === 'failed');
    expect(failed.conditions?.[0]).toMatchObject({
      type: 'Failed',
      message: 'failure policy is FailurePolicyTypeFailFast and failed pod is found',
    });
    // the two still running are deleted; the failed one stays
    await eventually(async () => (await podsOf('fast', true)).length === 1, 30_000, 200);
    expect((await podsOf('fast'))[0]?.status?.phase).toBe('Failed');
  }, 120_000);

  it('pauses on a failed pod with failure policy Pause', async () => {
    await create(
      job('pausing', `if [ "$NODE" = ${NODE} ]; then exit 1; fi; sleep 60`, {
        failurePolicy: { type: 'Pause' },
      }),
    );
    await statusWhen('pausing', (s) => s.phase === 'paused' && s.failed === 1);
    expect((await get('pausing'))?.spec?.paused).toBe(true);
    // paused, not failed: the others run on
    expect((await podsOf('pausing')).filter((p) => p.status?.phase === 'Running')).toHaveLength(2);
  }, 120_000);

  it('counts an OnFailure pod failed once it restarted more than restartLimit times', async () => {
    const obj = job(
      'restarts',
      'exit 1',
      { failurePolicy: { type: 'FailFast', restartLimit: 1 } },
      'OnFailure',
    );
    obj.spec.template.spec.nodeSelector = { 'kubernetes.io/hostname': NODE };
    await create(obj);
    await statusWhen('restarts', (s) => s.phase === 'failed', 90_000);
    const [pod] = await podsOf('restarts');
    expect(pod?.status?.containerStatuses?.[0]?.restartCount).toBeGreaterThan(1);
  }, 120_000);

  it('fails a job active past activeDeadlineSeconds with DeadlineExceeded, deleting its pods', async () => {
    await create(job('late', 'sleep 60', { completionPolicy: { type: 'Always', activeDeadlineSeconds: 3 } }));
    const failed = await statusWhen('late', (s) => s.phase === 'failed', 30_000);
    expect(failed.conditions?.[0]?.message).toBe(
      'Job default/late was active longer than specified deadline',
    );
    await eventually(async () => (await podsOf('late', true)).length === 0, 30_000, 200);
  }, 120_000);

  it('with completion Never gives a node that joins later its pod', async () => {
    await create(job('keeper', 'true', { completionPolicy: { type: 'Never' } }));
    await statusWhen('keeper', (s) => s.succeeded === 3);
    late = await startTestNodes(sys.client, {
      count: 1,
      base: 'bcj-late',
      criStackDir: `${inject('criStackDir')}-bcj-late`,
      registry: sys.registry,
    });
    const status = await statusWhen('keeper', (s) => s.succeeded === 4, 90_000);
    expect(status).toMatchObject({ desired: 4, phase: 'running' });
    expect(await nodesOf('keeper')).toContain('bcj-late');
  }, 150_000);

  it('refuses bad objects with upstream’s messages and stores nothing', async () => {
    const always = job('always', 'true', {}, 'Always');
    const err = await create(always).catch((e) => e);
    expect(err.message).toContain(
      'admission webhook "vbroadcastjob.kb.io" denied the request: spec.template.spec.restartPolicy: Invalid value: "Always": pod restartPolicy can only be Never or OnFailure',
    );
    const never = job('never-ttl', 'true', {
      completionPolicy: { type: 'Never', ttlSecondsAfterFinished: 5 },
    });
    expect((await create(never).catch((e) => e)).message).toContain(
      'ttlSecondsAfterFinished can just work with Always CompletionPolicyType',
    );
    const labelled = job('labelled', 'true');
    labelled.spec.template.metadata = { labels: { 'broadcastjob-controller-uid': 'x' } };
    expect((await create(labelled).catch((e) => e)).message).toContain(
      '"broadcastjob-name" and "broadcastjob-controller-uid" are not allowed to preset in pod labels',
    );
    for (const name of ['always', 'never-ttl', 'labelled']) expect(await get(name)).toBeUndefined();
  }, 120_000);
});
