import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { eventually, kubeConfigFor, rawRequest, startControlPlane } from './helpers.ts';
import { activeOf, endPod, jobPods, runPod } from './job-kubelet.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';
import { createNode } from './nodes.ts';

/**
 * The Job controller against a control plane with a scheduler and one node but no kubelet: the
 * test reports pods Running, Succeeded or Failed through the status subresource, as kubelet would.
 */
let cp: ControlPlane;
let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
let dispose: () => void;
const BACKOFF_MS = 600;

beforeAll(async () => {
  cp = await startControlPlane({ jobPodFailureBackoffMs: BACKOFF_MS });
  ({ kubectl, dispose } = kubectlFor(cp));
  await createNode(kubeConfigFor(cp).makeApiClient(CoreV1Api), 'worker');
});
afterAll(async () => {
  dispose?.();
  await cp?.stop();
});

const job = (name: string, spec = '') =>
  `apiVersion: batch/v1
kind: Job
metadata: {name: ${name}, namespace: default}
spec:
${spec}  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: main, image: "busybox:1.36"}
`;

async function apply(yaml: string): Promise<void> {
  const out = await kubectl(['apply', '-f', '-'], yaml);
  expect(out.err).toBe('');
  expect(out.code).toBe(0);
}

const getJob = async (name: string) =>
  (await rawRequest(cp, 'GET', `/apis/batch/v1/namespaces/default/jobs/${name}`)).body;
const conditionOf = (j: any, type: string) => j.status?.conditions?.find((c: any) => c.type === type);

/** Waits for `n` active pods of the Job and returns them. */
const activePods = (name: string, n: number) =>
  eventually(
    async () => {
      const pods = activeOf(await jobPods(cp, name));
      return pods.length === n ? pods : undefined;
    },
    { what: `${n} active pods of ${name}` },
  );

const eventsOf = async (name: string) =>
  (await rawRequest(cp, 'GET', '/api/v1/namespaces/default/events')).body.items.filter(
    (e: any) => e.involvedObject.kind === 'Job' && e.involvedObject.name === name,
  );

describe('Job controller', () => {
  it('runs completions 3 with parallelism 2 (never more than 2 at once) and completes after 3 successes', async () => {
    let maxActive = 0;
    const stopWatching = cp.store.subscribe('/pods', {
      onChange: () => {
        const active = cp.store
          .list('/pods', 'default')
          .map((e) => e.obj)
          .filter((p) => p.metadata?.labels?.['job-name'] === 'three')
          .filter(
            (p) => !p.metadata?.deletionTimestamp && !['Succeeded', 'Failed'].includes(p.status?.phase),
          );
        maxActive = Math.max(maxActive, active.length);
      },
    });
    await apply(job('three', '  completions: 3\n  parallelism: 2\n'));
    const first = await activePods('three', 2);
    const j = await getJob('three');
    for (const pod of first) {
      expect(pod.metadata.name).toMatch(/^three-[a-z0-9]{5}$/);
      expect(pod.metadata.finalizers).toContain('batch.kubernetes.io/job-tracking');
      expect(pod.metadata.labels).toMatchObject({
        'batch.kubernetes.io/controller-uid': j.metadata.uid,
        'batch.kubernetes.io/job-name': 'three',
        'controller-uid': j.metadata.uid,
        'job-name': 'three',
      });
      expect(pod.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          name: 'three',
          uid: j.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      await runPod(cp, pod.metadata.name);
    }
    await eventually(async () => (await getJob('three')).status?.ready === 2, { what: 'ready 2' });
    const running = await getJob('three');
    expect(running.status).toMatchObject({
      active: 2,
      ready: 2,
      terminating: 0,
      uncountedTerminatedPods: {},
    });
    expect(running.status.startTime).toMatch(/Z$/);
    expect((await kubectl(['get', 'jobs', 'three'])).out).toMatch(/\nthree\s+Running\s+0\/3\s+\d+s\s+\d+s\n/);

    await endPod(cp, first[0].metadata.name, { phase: 'Succeeded' });
    const second = await eventually(async () => {
      const pods = await jobPods(cp, 'three');
      return pods.length === 3 ? pods : undefined;
    });
    // The counted pod lost its finalizer; the job counts it.
    await eventually(async () => (await getJob('three')).status?.succeeded === 1);
    const done = second.find((p) => p.metadata.name === first[0].metadata.name);
    expect(
      (await rawRequest(cp, 'GET', `/api/v1/namespaces/default/pods/${done.metadata.name}`)).body.metadata
        .finalizers,
    ).toBeUndefined();
    for (const pod of activeOf(second)) await endPod(cp, pod.metadata.name, { phase: 'Succeeded' });

    const wait = await kubectl(['wait', '--for=condition=complete', 'job/three', '--timeout=20s']);
    expect(wait.out).toBe('job.batch/three condition met\n');
    const finished = await getJob('three');
    expect(finished.status.succeeded).toBe(3);
    expect(finished.status.failed).toBeUndefined();
    expect(finished.status.conditions.map((c: any) => [c.type, c.status, c.reason])).toEqual([
      ['SuccessCriteriaMet', 'True', 'CompletionsReached'],
      ['Complete', 'True', 'CompletionsReached'],
    ]);
    expect(finished.status.completionTime).toBe(conditionOf(finished, 'Complete').lastTransitionTime);
    expect((await jobPods(cp, 'three')).length).toBe(3);
    expect(maxActive).toBe(2);
    stopWatching();
    expect((await kubectl(['get', 'jobs', 'three'])).out).toMatch(
      /\nthree\s+Complete\s+3\/3\s+\d+s\s+\d+s\n/,
    );
    const events = await eventsOf('three');
    expect(
      events
        .filter((e: any) => e.reason === 'SuccessfulCreate')
        .map((e: any) => e.message)
        .sort(),
    ).toEqual(second.map((p) => `Created pod: ${p.metadata.name}`).sort());
    expect(events.find((e: any) => e.reason === 'Completed')).toMatchObject({
      type: 'Normal',
      message: 'Job completed',
      source: { component: 'job-controller' },
    });
  });

  it('runs `kubectl create job` to Complete, as `kubectl get jobs`, `kubectl wait` and `kubectl describe` see it', async () => {
    const created = await kubectl(['create', 'job', 'hello', '--image=busybox:1.36', '--', 'echo', 'hi']);
    expect(created.out).toBe('job.batch/hello created\n');
    const [pod] = await activePods('hello', 1);
    expect(pod.spec.containers[0]).toMatchObject({
      name: 'hello',
      image: 'busybox:1.36',
      command: ['echo', 'hi'],
    });
    expect(pod.spec.nodeName).toBe('worker');
    expect((await kubectl(['get', 'jobs'])).out).toMatch(/\nhello\s+Running\s+0\/1\s+\d+s\s+\d+s\n/);
    await endPod(cp, pod.metadata.name, { phase: 'Succeeded' });
    const wait = await kubectl(['wait', '--for=condition=complete', 'job/hello', '--timeout=20s']);
    expect(wait.code).toBe(0);
    expect((await kubectl(['get', 'job', 'hello'])).out).toMatch(
      /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\nhello\s+Complete\s+1\/1\s+\d+s\s+\d+s\n$/,
    );
    const described = await eventually(async () => {
      const out = (await kubectl(['describe', 'job', 'hello'])).out;
      return out.includes('Completed') ? out : undefined;
    });
    expect(described).toMatch(/\nPods Statuses:\s+0 Active \(0 Ready\) \/ 1 Succeeded \/ 0 Failed\n/);
    expect(described).toMatch(
      new RegExp(
        `Normal\\s+SuccessfulCreate\\s+\\S+\\s+job-controller\\s+Created pod: ${pod.metadata.name}\n`,
      ),
    );
    expect(described).toMatch(/Normal\s+Completed\s+\S+\s+job-controller\s+Job completed\n/);
  });

  it('gives an Indexed Job one pod per index and completes when every index succeeded', async () => {
    await apply(job('idx', '  completions: 3\n  parallelism: 3\n  completionMode: Indexed\n'));
    const pods = await activePods('idx', 3);
    const byIndex = new Map(
      pods.map((p) => [p.metadata.annotations['batch.kubernetes.io/job-completion-index'], p]),
    );
    expect([...byIndex.keys()].sort()).toEqual(['0', '1', '2']);
    for (const [ix, p] of byIndex) {
      expect(p.metadata.name).toMatch(new RegExp(`^idx-${ix}-[a-z0-9]{5}$`));
      expect(p.metadata.labels['batch.kubernetes.io/job-completion-index']).toBe(ix);
      expect(p.spec.hostname).toBe(`idx-${ix}`);
      expect(p.spec.containers[0].env).toEqual([
        {
          name: 'JOB_COMPLETION_INDEX',
          valueFrom: {
            fieldRef: {
              apiVersion: 'v1',
              fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']",
            },
          },
        },
      ]);
    }
    await endPod(cp, byIndex.get('0')!.metadata.name, { phase: 'Succeeded' });
    await endPod(cp, byIndex.get('2')!.metadata.name, { phase: 'Succeeded' });
    await eventually(async () => (await getJob('idx')).status?.completedIndexes === '0,2');
    // A failed index is run again; the index keeps its number.
    await endPod(cp, byIndex.get('1')!.metadata.name, { phase: 'Failed' });
    const [again] = await activePods('idx', 1);
    expect(again.metadata.name).toMatch(/^idx-1-/);
    await endPod(cp, again.metadata.name, { phase: 'Succeeded' });
    await eventually(async () => conditionOf(await getJob('idx'), 'Complete')?.status === 'True');
    expect((await getJob('idx')).status).toMatchObject({ succeeded: 3, failed: 1, completedIndexes: '0-2' });
  });

  it('fails a Job with backoffLimit 1 after its second failure, re-creating the pod after the back-off', async () => {
    await apply(job('flaky', '  backoffLimit: 1\n'));
    const [first] = await activePods('flaky', 1);
    const failedAt = Date.now();
    await endPod(cp, first.metadata.name, { phase: 'Failed', exitCode: 1 });
    const [second] = await activePods('flaky', 1);
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(BACKOFF_MS - 100);
    expect((await getJob('flaky')).status).toMatchObject({ failed: 1, active: 1 });
    await endPod(cp, second.metadata.name, { phase: 'Failed', exitCode: 2 });
    const failed = await eventually(async () => {
      const j = await getJob('flaky');
      return conditionOf(j, 'Failed') ? j : undefined;
    });
    expect(failed.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['FailureTarget', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ['Failed', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
    ]);
    expect(failed.status).toMatchObject({ failed: 2, ready: 0, terminating: 0 });
    expect(failed.status.completionTime).toBeUndefined();
    expect((await kubectl(['get', 'job', 'flaky'])).out).toMatch(/\nflaky\s+Failed\s+0\/1\s+\d+s\s+\d+s\n/);
    await eventually(async () =>
      (await eventsOf('flaky')).some(
        (e: any) =>
          e.type === 'Warning' &&
          e.reason === 'BackoffLimitExceeded' &&
          e.message === 'Job has reached the specified backoff limit',
      ),
    );
    const wait = await kubectl(['wait', '--for=condition=failed', 'job/flaky', '--timeout=5s']);
    expect(wait.code).toBe(0);
  });

  it('ends a Job past activeDeadlineSeconds: its pods are deleted, then it is Failed with DeadlineExceeded', async () => {
    await apply(job('slow', '  activeDeadlineSeconds: 1\n'));
    const [pod] = await activePods('slow', 1);
    await runPod(cp, pod.metadata.name);
    const target = await eventually(async () => {
      const j = await getJob('slow');
      return conditionOf(j, 'FailureTarget') ? j : undefined;
    });
    expect(conditionOf(target, 'FailureTarget')).toMatchObject({
      reason: 'DeadlineExceeded',
      message: 'Job was active longer than specified deadline',
    });
    // The pod is terminating (a kubelet would stop it): the Job waits for it.
    const deleting = await eventually(async () => {
      const [p] = await jobPods(cp, 'slow');
      return p?.metadata.deletionTimestamp ? p : undefined;
    });
    expect(deleting.metadata.finalizers).toBeUndefined();
    await eventually(async () => (await getJob('slow')).status?.terminating === 1);
    expect(conditionOf(await getJob('slow'), 'Failed')).toBeUndefined();
    await endPod(cp, pod.metadata.name, { phase: 'Failed', exitCode: 137 });
    const failed = await eventually(async () => {
      const j = await getJob('slow');
      return conditionOf(j, 'Failed') ? j : undefined;
    });
    expect(conditionOf(failed, 'Failed')).toMatchObject({
      status: 'True',
      reason: 'DeadlineExceeded',
      message: 'Job was active longer than specified deadline',
    });
    expect(failed.status).toMatchObject({ failed: 1, terminating: 0 });
    await eventually(async () => (await eventsOf('slow')).some((e: any) => e.reason === 'DeadlineExceeded'));
  });

  it('applies podFailurePolicy: Ignore on a disruption, FailJob on exit code 42 with upstream’s message', async () => {
    await apply(
      job(
        'policy',
        `  backoffLimit: 0
  podFailurePolicy:
    rules:
    - action: Ignore
      onPodConditions: [{type: DisruptionTarget}]
    - action: FailJob
      onExitCodes: {containerName: main, operator: In, values: [42]}
`,
      ),
    );
    const [first] = await activePods('policy', 1);
    await endPod(cp, first.metadata.name, {
      phase: 'Failed',
      exitCode: 137,
      conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' }],
    });
    const [second] = await activePods('policy', 1);
    expect((await getJob('policy')).status.failed).toBeUndefined();
    await endPod(cp, second.metadata.name, { phase: 'Failed', exitCode: 42 });
    const failed = await eventually(async () => {
      const j = await getJob('policy');
      return conditionOf(j, 'Failed') ? j : undefined;
    });
    const message = `Container main for pod default/${second.metadata.name} failed with exit code 42 matching FailJob rule at index 1`;
    expect(failed.status.conditions.map((c: any) => [c.type, c.reason, c.message])).toEqual([
      ['FailureTarget', 'PodFailurePolicy', message],
      ['Failed', 'PodFailurePolicy', message],
    ]);
    expect(failed.status.failed).toBe(1);
  });

  it('with backoffLimitPerIndex, fails an index that used up its retries and then the Job (FailedIndexes)', async () => {
    await apply(
      job(
        'perindex',
        '  completions: 2\n  parallelism: 2\n  completionMode: Indexed\n  backoffLimitPerIndex: 1\n',
      ),
    );
    const pods = await activePods('perindex', 2);
    const index = (p: any) => p.metadata.annotations['batch.kubernetes.io/job-completion-index'];
    const zero = pods.find((p) => index(p) === '0');
    const one = pods.find((p) => index(p) === '1');
    expect(zero.metadata.annotations['batch.kubernetes.io/job-index-failure-count']).toBe('0');
    await endPod(cp, zero.metadata.name, { phase: 'Failed' });
    const retry = await eventually(async () =>
      activeOf(await jobPods(cp, 'perindex')).find(
        (p) => index(p) === '0' && p.metadata.name !== zero.metadata.name,
      ),
    );
    expect(retry.metadata.annotations['batch.kubernetes.io/job-index-failure-count']).toBe('1');
    await endPod(cp, retry.metadata.name, { phase: 'Failed' });
    await eventually(async () => (await getJob('perindex')).status?.failedIndexes === '0');
    expect(conditionOf(await getJob('perindex'), 'Failed')).toBeUndefined();
    await endPod(cp, one.metadata.name, { phase: 'Succeeded' });
    const failed = await eventually(async () => {
      const j = await getJob('perindex');
      return conditionOf(j, 'Failed') ? j : undefined;
    });
    expect(conditionOf(failed, 'Failed')).toMatchObject({
      reason: 'FailedIndexes',
      message: 'Job has failed indexes',
    });
    expect(failed.status).toMatchObject({
      failed: 2,
      succeeded: 1,
      completedIndexes: '1',
      failedIndexes: '0',
    });
  });

  it('suspends a Job (no pods, Suspended condition) and resumes it', async () => {
    await apply(job('later', '  suspend: true\n'));
    const suspended = await eventually(async () => {
      const j = await getJob('later');
      return conditionOf(j, 'Suspended') ? j : undefined;
    });
    expect(conditionOf(suspended, 'Suspended')).toMatchObject({
      status: 'True',
      reason: 'JobSuspended',
      message: 'Job suspended',
    });
    expect(suspended.status.startTime).toBeUndefined();
    expect(await jobPods(cp, 'later')).toEqual([]);
    expect((await kubectl(['get', 'job', 'later'])).out).toMatch(/\nlater\s+Suspended\s+0\/1\s+\s+\d+s\n/);
    expect((await kubectl(['patch', 'job', 'later', '-p', '{"spec":{"suspend":false}}'])).code).toBe(0);
    await activePods('later', 1);
    const resumed = await eventually(async () => {
      const j = await getJob('later');
      return conditionOf(j, 'Suspended')?.status === 'False' ? j : undefined;
    });
    expect(conditionOf(resumed, 'Suspended')).toMatchObject({ reason: 'JobResumed', message: 'Job resumed' });
    expect(resumed.status.startTime).toMatch(/Z$/);
    // Suspended again while its pod runs: the pod is deleted, no longer tracked.
    const [pod] = await activePods('later', 1);
    await runPod(cp, pod.metadata.name);
    expect((await kubectl(['patch', 'job', 'later', '-p', '{"spec":{"suspend":true}}'])).code).toBe(0);
    const again = await eventually(async () => {
      const j = await getJob('later');
      return conditionOf(j, 'Suspended')?.status === 'True' ? j : undefined;
    });
    expect(again.status).toMatchObject({ ready: 0, terminating: 1 });
    expect(again.status.active).toBeUndefined();
    const [stopping] = await jobPods(cp, 'later');
    expect(stopping.metadata.deletionTimestamp).toBeDefined();
    expect(stopping.metadata.finalizers).toBeUndefined();
    const reasons = await eventually(async () => {
      const all = (await eventsOf('later')).map((e: any) => e.reason);
      return all.filter((r: string) => r === 'Suspended').length === 2 ? all : undefined;
    });
    expect(reasons).toContain('Resumed');
    expect(reasons).toContain('SuccessfulDelete');
  });

  it('lets `kubectl delete job` take its pods: their tracking finalizer goes with the Job', async () => {
    await apply(job('gone', '  completions: 2\n  parallelism: 2\n'));
    const [running, pending] = await activePods('gone', 2);
    await runPod(cp, running.metadata.name);
    const deleted = await kubectl(['delete', 'job', 'gone']);
    expect(deleted.out).toBe('job.batch "gone" deleted\n');
    // Both pods are bound: they wait for their kubelet to stop them, no longer held by the finalizer.
    const left = await eventually(async () => {
      const pods = await jobPods(cp, 'gone');
      return pods.every((p) => p.metadata.deletionTimestamp && !p.metadata.finalizers) ? pods : undefined;
    });
    expect(left.map((p) => p.metadata.name).sort()).toEqual(
      [running.metadata.name, pending.metadata.name].sort(),
    );
    // As kubelet, once the containers stopped: the pods go for good.
    for (const p of left)
      expect(
        (
          await rawRequest(
            cp,
            'DELETE',
            `/api/v1/namespaces/default/pods/${p.metadata.name}?gracePeriodSeconds=0`,
          )
        ).code,
      ).toBe(200);
    expect(await jobPods(cp, 'gone')).toEqual([]);
  });

  it('deletes a finished Job and its pods once ttlSecondsAfterFinished has passed', async () => {
    await apply(job('brief', '  ttlSecondsAfterFinished: 1\n'));
    const [pod] = await activePods('brief', 1);
    await endPod(cp, pod.metadata.name, { phase: 'Succeeded' });
    await eventually(async () => conditionOf(await getJob('brief'), 'Complete'));
    await eventually(
      async () => (await rawRequest(cp, 'GET', '/apis/batch/v1/namespaces/default/jobs/brief')).code === 404,
    );
    await eventually(async () => (await jobPods(cp, 'brief')).length === 0);
    const got = await kubectl(['get', 'job', 'brief']);
    expect(got.err).toContain('Error from server (NotFound): jobs.batch "brief" not found');
  });
});
