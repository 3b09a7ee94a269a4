import { type BroadcastJob, type BroadcastJobStatus, KruiseResources } from '@kruise/api';
import { deprecatedIntPercentValue, kubeTime } from '@kruise/kube-compat';
import {
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  type ReconcileResult,
  Resources,
  retryOnConflict,
  type ScaleExpectations,
} from '@kruise/runtime';
import type { Node, Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { isPodActive } from '../../workload/pod-state.ts';
import { doItSlowly } from '../../workload/slow-start.ts';
import { deleteAfterTtl, ttlAfterFinished } from '../ttl-after-finished.ts';
import { placeJob, podsByNode } from './placement.ts';
import { assignedNode, countPods, jobPods, labelledTemplate, newJobPod } from './pods.ts';
import { deadlineLeftMs, finishJob, isJobFinished, statusChanged } from './status.ts';

/** What the BroadcastJob reconciler reads and writes through. */
export interface BroadcastJobDeps {
  client: KubeClient;
  /** The cached job by `namespace/name`. */
  job(key: string): BroadcastJob | undefined;
  /** Cached pods controlled by an owner UID. */
  ownedPods(uid: string): Pod[];
  /** Every cached node. */
  nodes(): Node[];
  scale: ScaleExpectations;
  event(job: BroadcastJob, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** The clock (epoch milliseconds). */
  now(): number;
  /** Pin new pods through node affinity for the scheduler (upstream's --assign-bcj-pods-by-scheduler), else by nodeName. */
  pinByAffinity: boolean;
}

/** One reconcile's counts, as upstream keeps them in local variables. */
interface Counts {
  active: number;
  failed: number;
}

/**
 * The BroadcastJob reconciler (upstream's ReconcileBroadcastJob): one pod per node that fits, up to
 * `parallelism` active at a time; counting, failure policies, the active deadline, completion and
 * TTL deletion as upstream. Beyond upstream: `active` counts only pods whose creation succeeded
 * (#2414), and a Pause failure policy stores `spec.paused: true`.
 */
export class BroadcastJobReconciler {
  private readonly d: BroadcastJobDeps;

  constructor(deps: BroadcastJobDeps) {
    this.d = deps;
  }

  async reconcile(key: string, log: Logger): Promise<ReconcileResult | undefined> {
    const cached = this.d.job(key);
    if (!cached) {
      this.d.scale.delete(key);
      return undefined;
    }
    const check = this.d.scale.check(key);
    if (!check.satisfied) return { requeueAfterMs: check.retryAfterMs };
    const job = structuredClone(cached);
    const now = this.d.now();
    if (isJobFinished(job)) {
      const due = ttlAfterFinished(
        job.status?.completionTime,
        job.spec?.completionPolicy?.ttlSecondsAfterFinished,
        now,
        log,
      );
      return deleteAfterTtl(this.d.client, KruiseResources.BroadcastJob, job as KubeObject, due, log);
    }
    const status: BroadcastJobStatus = { ...job.status };
    status.startTime ??= kubeTime(now);
    status.phase ||= 'running';
    // every type but Never completes and has a deadline, as upstream checks only for Never
    const always = job.spec?.completionPolicy?.type !== 'Never';
    const left = always ? deadlineLeftMs(job, status, now) : undefined;
    let requeueAfter = left !== undefined && left > 0 ? left : undefined;

    const pods = jobPods(job, this.d.ownedPods(job.metadata?.uid ?? ''));
    const byNode = podsByNode(pods, (pod, node) =>
      this.d.event(
        job,
        'Warning',
        'DuplicatePodCreatedOnSameNode',
        `Duplicated pod ${pod.metadata?.name} found on same node ${node}`,
      ),
    );
    const counted = countPods(pods, job.spec?.failurePolicy?.restartLimit ?? 0);
    const succeeded = counted.succeeded.length;
    const counts: Counts = { active: counted.active.length, failed: counted.failed.length };
    const placement = placeJob(job, this.d.nodes(), byNode);
    const desired = placement.desired.size;
    Object.assign(status, { active: counts.active, failed: counts.failed, succeeded, desired });
    log.debug(
      { desired, active: counts.active, failed: counts.failed, rest: placement.rest.length },
      'counted pods',
    );

    if (status.phase === 'failed') return this.written(key, job, status, requeueAfter);
    if (job.spec?.paused && (status.phase === 'running' || status.phase === 'paused')) {
      status.phase = 'paused';
      return this.written(key, job, status, requeueAfter);
    }
    if (!job.spec?.paused && status.phase === 'paused') {
      status.phase = 'running';
      this.d.event(job, 'Normal', 'Continue', 'continue to process job');
    }

    let failure: { reason: string; message: string } | undefined;
    if (counts.failed > 0) {
      const policy = job.spec?.failurePolicy?.type ?? 'FailFast';
      if (policy === 'Pause') {
        this.d.event(job, 'Warning', 'Paused', 'job is paused, due to failed pod');
        status.phase = 'paused';
        return this.written(key, await this.pause(job), status, requeueAfter);
      }
      if (policy === 'FailFast') {
        failure = {
          reason: 'failed pod is found',
          message: 'failure policy is FailurePolicyTypeFailFast and failed pod is found',
        };
        this.d.event(
          job,
          'Warning',
          failure.reason,
          `${failure.message}: ${succeeded} pods succeeded, ${counts.failed} pods failed`,
        );
      }
    }
    if (!failure && always && left !== undefined && left <= 0)
      failure = {
        reason: 'DeadlineExceeded',
        message: `Job ${job.metadata?.namespace}/${job.metadata?.name} was active longer than specified deadline`,
      };

    let error: unknown;
    if (failure) {
      error = await this.deletePods(key, job, counted.active, counts);
      status.phase = 'failed';
      requeueAfter = finishJob(job, status, 'Failed', failure.message, now);
      this.d.event(
        job,
        'Warning',
        failure.reason,
        `${failure.message}: ${succeeded} pods succeeded, ${counts.failed} pods failed`,
      );
    } else {
      if (placement.toDelete.length) error = await this.deletePods(key, job, placement.toDelete, counts);
      if (!job.metadata?.deletionTimestamp && placement.rest.length)
        error = (await this.createPods(key, job, placement.rest, counts, desired)) ?? error;
      const complete =
        always && desired > 0 && [...placement.desired.values()].every((p) => p && !isPodActive(p));
      if (complete) {
        status.phase = 'completed';
        requeueAfter = finishJob(
          job,
          status,
          'Complete',
          `Job completed, ${succeeded} pods succeeded, ${counts.failed} pods failed`,
          now,
        );
        this.d.event(
          job,
          'Normal',
          'JobComplete',
          `Job ${job.metadata?.namespace}/${job.metadata?.name} is completed, ${succeeded} pods succeeded, ${counts.failed} pods failed`,
        );
      }
    }
    status.failed = counts.failed;
    status.active = counts.active;
    const result = await this.written(key, job, status, requeueAfter);
    if (error) throw error;
    return result;
  }

  /** Writes the status when it changed; returns the requeue. */
  private async written(
    key: string,
    job: BroadcastJob,
    status: BroadcastJobStatus,
    requeueAfterMs: number | undefined,
  ): Promise<ReconcileResult | undefined> {
    if (statusChanged(job.status, status)) {
      let latest = job as BroadcastJob & KubeObject;
      let retry = false;
      await retryOnConflict(async () => {
        // after a conflict, over the cache's newer copy (as upstream reads its cache)
        if (retry) latest = (this.d.job(key) ?? latest) as BroadcastJob & KubeObject;
        retry = true;
        await this.d.client.updateStatus(KruiseResources.BroadcastJob, { ...latest, status });
      });
    }
    return requeueAfterMs !== undefined && requeueAfterMs > 0 ? { requeueAfterMs } : undefined;
  }

  /** Stores `spec.paused: true` (failure policy Pause); returns the job as stored. */
  private async pause(job: BroadcastJob): Promise<BroadcastJob> {
    return (await this.d.client.mergePatch(
      KruiseResources.BroadcastJob,
      job.metadata?.namespace,
      job.metadata?.name ?? '',
      { spec: { paused: true } },
    )) as BroadcastJob;
  }

  /**
   * Deletes pods together (upstream's deleteJobPods); each deletion counts the pod failed and no
   * longer active, as upstream. Returns the first error.
   */
  private async deletePods(key: string, job: BroadcastJob, pods: Pod[], counts: Counts): Promise<unknown> {
    const results = await Promise.allSettled(
      pods.map(async (pod) => {
        const node = assignedNode(pod);
        this.d.scale.expectDeletion(key, node);
        try {
          await this.d.client.delete(Resources.Pod, pod.metadata?.namespace, pod.metadata?.name ?? '');
        } catch (err) {
          this.d.scale.deletionObserved(key, node);
          if (isNotFound(err)) return;
          throw err;
        }
        counts.failed++;
        counts.active--;
        this.d.event(job, 'Normal', 'SuccessfulDelete', `Delete pod: ${pod.metadata?.name}`);
      }),
    );
    return (results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined)?.reason;
  }

  /**
   * Creates pods on `nodes`, at most `parallelism − active` (parallelism an integer or a percentage
   * of `desired`, rounded up), in batches of 1, 2, 4 … that stop at the first failure (upstream's
   * reconcilePods). Only a pod actually created counts active. Returns the first error.
   */
  private async createPods(
    key: string,
    job: BroadcastJob,
    nodes: Node[],
    counts: Counts,
    desired: number,
  ): Promise<unknown> {
    let parallelism: number;
    try {
      parallelism = deprecatedIntPercentValue(job.spec?.parallelism ?? 2 ** 31 - 1, desired, true);
    } catch (err) {
      return err;
    }
    if (counts.active > parallelism) {
      this.d.event(job, 'Warning', 'TooManyActivePods', 'Number of active pods exceed parallelism limit');
      return undefined;
    }
    const count = Math.min(parallelism - counts.active, nodes.length);
    if (count <= 0) return undefined;
    const template = labelledTemplate(job);
    const { successes, error } = await doItSlowly(count, (i) =>
      this.createPod(key, job, template, nodes[i]?.metadata?.name ?? ''),
    );
    counts.active += successes;
    return error;
  }

  private async createPod(
    key: string,
    job: BroadcastJob,
    template: PodTemplateSpec,
    nodeName: string,
  ): Promise<void> {
    const pod = newJobPod(job, template, nodeName, this.d.pinByAffinity);
    this.d.scale.expectCreation(key, nodeName);
    let created: KubeObject;
    try {
      created = await this.d.client.create(Resources.Pod, pod as unknown as KubeObject);
    } catch (err) {
      this.d.scale.creationObserved(key, nodeName);
      this.d.event(job, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
      throw err;
    }
    this.d.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name}`);
  }
}
