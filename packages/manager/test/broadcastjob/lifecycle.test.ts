import type { BroadcastJob } from '@kruise/api';
import { KruiseResources } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addNodes,
  type BroadcastJobEnv,
  broadcastJob,
  eventsOf,
  eventually,
  getJob,
  node,
  pinnedNode,
  podsOf,
  setPhase,
  startBroadcastJobEnv,
  touch,
} from './harness.ts';

/**
 * BroadcastJob's controller against the in-process control plane (its scheduler binds the pods;
 * the test plays kubelet): one pod per node, counting, parallelism, failure policies, the
 * deadline, completion and TTL, on three nodes of pool `main`.
 */
let env: BroadcastJobEnv;
beforeAll(async () => {
  env = await startBroadcastJobEnv();
  await addNodes(
    env.client,
    node('m1', { pool: 'main' }),
    node('m2', { pool: 'main' }),
    node('m3', { pool: 'main' }),
  );
});
afterAll(() => env?.stop());

const MAIN = { nodeSelector: { pool: 'main' } };
const create = (job: ReturnType<typeof broadcastJob>) => env.client.create(KruiseResources.BroadcastJob, job);
const job = (name: string) => getJob(env.client, name);
/** The job's status once `check` holds for it. */
const statusWhen = (name: string, check: (j: BroadcastJob) => boolean, timeoutMs?: number) =>
  eventually(async () => {
    const j = await job(name);
    return j && check(j) ? j.status : undefined;
  }, timeoutMs);
const podsWhen = (name: string, count: number) =>
  eventually(async () => {
    const pods = await podsOf(env.client, name);
    return pods.length === count ? pods : undefined;
  });
const finishAll = async (pods: Pod[], phase: 'Succeeded' | 'Failed' = 'Succeeded') => {
  for (const p of pods) await setPhase(env.client, p, phase);
};

describe('BroadcastJob on every node', () => {
  it('creates one pod per node, labelled, owned and pinned through node affinity, and completes when all succeeded', async () => {
    const created = (await create(broadcastJob('all', {}, MAIN))) as BroadcastJob;
    const pods = await podsWhen('all', 3);
    expect(pods.map(pinnedNode).sort()).toEqual(['m1', 'm2', 'm3']);
    for (const p of pods) {
      expect(p.metadata?.labels).toMatchObject({
        'broadcastjob-name': 'all',
        'broadcastjob-controller-uid': created.metadata?.uid,
      });
      expect(p.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'apps.kruise.io/v1beta1',
          kind: 'BroadcastJob',
          name: 'all',
          uid: created.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(p.metadata?.generateName).toBe('all-');
    }
    const running = await statusWhen('all', (j) => j.status?.active === 3);
    expect(running).toMatchObject({ phase: 'running', desired: 3, active: 3, succeeded: 0, failed: 0 });
    expect(running?.startTime).toMatch(/Z$/);
    await finishAll(pods);
    const done = await statusWhen('all', (j) => j.status?.phase === 'completed');
    expect(done).toMatchObject({ desired: 3, active: 0, succeeded: 3, failed: 0 });
    expect(done?.completionTime).toBeDefined();
    expect(done?.conditions).toMatchObject([
      {
        type: 'Complete',
        status: 'True',
        reason: 'Complete',
        message: 'Job completed, 3 pods succeeded, 0 pods failed',
      },
    ]);
    await eventually(async () =>
      (await eventsOf(env.client, 'all')).includes(
        'JobComplete: Job default/all is completed, 3 pods succeeded, 0 pods failed',
      ),
    );
    expect(
      (await eventsOf(env.client, 'all')).filter((e) => e.startsWith('SuccessfulCreate: Created pod: all-')),
    ).toHaveLength(3);
  });

  it('keeps at most `parallelism` pods active, integer or percentage of the desired nodes', async () => {
    await create(broadcastJob('one', { parallelism: 1 }, MAIN));
    let pods = await podsWhen('one', 1);
    await finishAll(pods);
    pods = await podsWhen('one', 2);
    // never two active at once
    expect(pods.filter((p) => p.status?.phase !== 'Succeeded')).toHaveLength(1);
    await create(broadcastJob('half', { parallelism: '50%' }, MAIN));
    // 50% of 3 rounded up
    await podsWhen('half', 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(await podsOf(env.client, 'half')).toHaveLength(2);
  });

  it('fails fast on a failed pod, deleting the active ones', async () => {
    await create(broadcastJob('fast', {}, MAIN));
    const pods = await podsWhen('fast', 3);
    await setPhase(env.client, pods[0]!, 'Failed');
    // the two active pods deleted; once they are gone the failed pod is the one counted, as upstream
    const failed = await statusWhen('fast', (j) => j.status?.phase === 'failed' && j.status.active === 0);
    await eventually(async () => (await podsOf(env.client, 'fast')).length === 1);
    await statusWhen('fast', (j) => j.status?.failed === 1 && j.status.succeeded === 0);
    expect(failed?.conditions).toMatchObject([
      {
        type: 'Failed',
        status: 'True',
        reason: 'Failed',
        message: 'failure policy is FailurePolicyTypeFailFast and failed pod is found',
      },
    ]);
    const events = await eventsOf(env.client, 'fast');
    expect(events).toContain(
      'failed pod is found: failure policy is FailurePolicyTypeFailFast and failed pod is found: 0 pods succeeded, 1 pods failed',
    );
    expect(events.filter((e) => e.startsWith('SuccessfulDelete: Delete pod: fast-'))).toHaveLength(2);
  });

  it('pauses on a failed pod with failure policy Pause: spec.paused stored, phase paused, no new pods', async () => {
    await create(broadcastJob('pause', { parallelism: 1, failurePolicy: { type: 'Pause' } }, MAIN));
    const [pod] = await podsWhen('pause', 1);
    await setPhase(env.client, pod!, 'Failed');
    const paused = await statusWhen('pause', (j) => j.status?.phase === 'paused' && j.spec?.paused === true);
    expect(paused).toMatchObject({ failed: 1, active: 0, desired: 3 });
    expect(await eventsOf(env.client, 'pause')).toContain('Paused: job is paused, due to failed pod');
    await new Promise((r) => setTimeout(r, 300));
    expect(await podsOf(env.client, 'pause')).toHaveLength(1);
  });

  it('continues past failed pods with failure policy Continue and completes', async () => {
    await create(broadcastJob('cont', { failurePolicy: { type: 'Continue' } }, MAIN));
    const pods = await podsWhen('cont', 3);
    await setPhase(env.client, pods[0]!, 'Failed');
    await finishAll(pods.slice(1));
    const done = await statusWhen('cont', (j) => j.status?.phase === 'completed');
    expect(done).toMatchObject({ succeeded: 2, failed: 1, active: 0 });
  });

  it('counts an OnFailure pod failed once its containers restarted past restartLimit', async () => {
    await create(
      broadcastJob('restarts', { failurePolicy: { type: 'FailFast', restartLimit: 2 } }, MAIN, 'OnFailure'),
    );
    const pods = await podsWhen('restarts', 3);
    await setPhase(env.client, pods[0]!, 'Running', 2);
    await new Promise((r) => setTimeout(r, 300));
    expect((await job('restarts'))?.status).toMatchObject({ phase: 'running', failed: 0 });
    await setPhase(env.client, pods[0]!, 'Running', 3);
    const failed = await statusWhen('restarts', (j) => j.status?.phase === 'failed');
    expect(failed?.conditions?.[0]?.type).toBe('Failed');
  });

  it('fails a job active past activeDeadlineSeconds with DeadlineExceeded and deletes its pods', async () => {
    await create(
      broadcastJob('deadline', { completionPolicy: { type: 'Always', activeDeadlineSeconds: 600 } }, MAIN),
    );
    await podsWhen('deadline', 3);
    env.advance(601_000);
    await touch(env.client, 'deadline');
    const failed = await statusWhen('deadline', (j) => j.status?.phase === 'failed' && j.status.active === 0);
    expect(failed?.conditions).toMatchObject([
      {
        type: 'Failed',
        reason: 'Failed',
        message: 'Job default/deadline was active longer than specified deadline',
      },
    ]);
    expect(await eventsOf(env.client, 'deadline')).toContain(
      'DeadlineExceeded: Job default/deadline was active longer than specified deadline: 0 pods succeeded, 3 pods failed',
    );
    await eventually(async () => (await podsOf(env.client, 'deadline')).length === 0);
    // no pod failed: its pods were deleted as they ran
    await statusWhen('deadline', (j) => j.status?.failed === 0 && j.status.succeeded === 0);
  });

  it('deletes a finished job once ttlSecondsAfterFinished passed, its pods with it', async () => {
    await create(
      broadcastJob('ttl', { completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 300 } }, MAIN),
    );
    await finishAll(await podsWhen('ttl', 3));
    await statusWhen('ttl', (j) => j.status?.phase === 'completed');
    await touch(env.client, 'ttl');
    await new Promise((r) => setTimeout(r, 300));
    expect(await job('ttl')).toBeDefined();
    env.advance(301_000);
    await touch(env.client, 'ttl');
    await eventually(async () => (await job('ttl')) === undefined);
    await eventually(async () => (await podsOf(env.client, 'ttl', true)).length === 0);
  });

  it('never counts a pod whose creation failed as active (#2414)', async () => {
    env.cp.faults.failWrites('/pods', Number.POSITIVE_INFINITY, 500, { verbs: ['create'] });
    try {
      await create(broadcastJob('refused', {}, MAIN));
      await eventually(async () =>
        (await eventsOf(env.client, 'refused')).some((e) => e.startsWith('FailedCreate: Error creating: ')),
      );
      const status = await statusWhen('refused', (j) => j.status?.desired === 3);
      expect(status).toMatchObject({ active: 0, phase: 'running' });
    } finally {
      env.cp.faults.clear();
    }
    await podsWhen('refused', 3);
    await statusWhen('refused', (j) => j.status?.active === 3);
  });

  it('serves a job created at v1alpha1 at both versions, and runs it', async () => {
    const alpha = { ...KruiseResources.BroadcastJob, version: 'v1alpha1' };
    const made = broadcastJob('alpha', { parallelism: 2 }, MAIN);
    made.apiVersion = 'apps.kruise.io/v1alpha1';
    const created = (await env.client.create(alpha, made)) as BroadcastJob;
    expect(created.apiVersion).toBe('apps.kruise.io/v1alpha1');
    // defaulted by the webhook at v1alpha1
    expect(created.spec).toMatchObject({
      parallelism: 2,
      completionPolicy: { type: 'Always' },
      failurePolicy: { type: 'FailFast' },
    });
    expect((await job('alpha'))?.apiVersion).toBe('apps.kruise.io/v1beta1');
    await podsWhen('alpha', 2);
    // the status the controller wrote at v1beta1, read at v1alpha1
    await eventually(async () => {
      const read = (await env.client.get(alpha, 'default', 'alpha')) as BroadcastJob;
      return (
        read.apiVersion === 'apps.kruise.io/v1alpha1' &&
        read.status?.desired === 3 &&
        read.status.active === 2
      );
    });
  });

  it('leaves a paused job alone: no pods, phase paused', async () => {
    await create(broadcastJob('held', { paused: true }, MAIN));
    await statusWhen('held', (j) => j.status?.phase === 'paused');
    expect(await podsOf(env.client, 'held')).toHaveLength(0);
    await env.client.mergePatch(KruiseResources.BroadcastJob, 'default', 'held', { spec: { paused: false } });
    await podsWhen('held', 3);
    expect(await eventsOf(env.client, 'held')).toContain('Continue: continue to process job');
  });
});
