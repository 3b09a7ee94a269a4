import { type AdvancedCronJob, type AdvancedCronJobStatus, KruiseResources } from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import {
  type EventRecorder,
  type Informer,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  type ReconcileResult,
  type Request,
  requestKey,
} from '@kruise/runtime';
import { stableJson } from '../imagelistpulljob/hash.ts';
import { runsBeyondLimit } from './history.ts';
import { type CronJobKind, templateKindOf } from './job-kinds.ts';
import { runObject, runReference, scheduledTimeOf } from './run-object.ts';
import { parseSchedule, scheduleTimes } from './schedule.ts';

/** The index of runs by their controlling AdvancedCronJob (`namespace/name`). */
export const BY_CRON_JOB = 'advancedCronJob';

/** What the AdvancedCronJob reconciler works with. */
export interface AdvancedCronJobDeps {
  client: KubeClient;
  cronJobs: Informer<AdvancedCronJob & KubeObject>;
  kinds: CronJobKind[];
  recorder: EventRecorder;
  /** The clock (epoch milliseconds; injectable for tests). */
  now: () => number;
}

const asEventObject = (acj: AdvancedCronJob) =>
  ({ ...acj, apiVersion: 'apps.kruise.io/v1beta1', kind: 'AdvancedCronJob' }) as KubeObject;

/**
 * One reconcile for every template kind (upstream's reconcileJob, reconcileBroadcastJob and
 * reconcileImageListPullJob, which differ only in the kind): status from the owned runs, history
 * pruned, then, unless paused, the most recent missed start time run if it is not too late and the
 * concurrency policy lets it, and a requeue at the next start time.
 */
export class AdvancedCronJobReconciler {
  private readonly d: AdvancedCronJobDeps;

  constructor(deps: AdvancedCronJobDeps) {
    this.d = deps;
  }

  /** Reconciles one AdvancedCronJob. */
  async reconcile(log: Logger, req: Request): Promise<ReconcileResult | undefined> {
    const key = requestKey(req);
    const acj = this.d.cronJobs.get(key);
    if (!acj?.spec) return undefined;
    const kindName = templateKindOf(acj);
    const kind = this.d.kinds.find((k) => k.kind === kindName);
    if (!kind) {
      log.info('no template found');
      return undefined;
    }
    const runs = kind.jobs.byIndex(BY_CRON_JOB, key);
    const active: KubeObject[] = [];
    const succeeded: KubeObject[] = [];
    const failed: KubeObject[] = [];
    let mostRecent: number | undefined;
    for (const run of runs) {
      const finished = kind.finished(run);
      (finished === 'Complete' ? succeeded : finished === 'Failed' ? failed : active).push(run);
      const scheduled = scheduledTimeOf(run);
      if (scheduled !== undefined && (mostRecent === undefined || scheduled > mostRecent))
        mostRecent = scheduled;
    }
    const status = this.status(acj, kind, active, mostRecent);
    await this.writeStatus(acj, status);
    log.debug({ active: active.length, succeeded: succeeded.length, failed: failed.length }, 'counted runs');

    for (const run of [
      ...runsBeyondLimit(failed, acj.spec.failedJobsHistoryLimit),
      ...runsBeyondLimit(succeeded, acj.spec.successfulJobsHistoryLimit),
    ])
      await this.deleteRun(kind, run, log, 'deleted an old finished run');

    if (acj.spec.paused) return undefined;
    const schedule = parseSchedule(acj);
    if (schedule instanceof Error) {
      // Nothing to retry until the schedule is fixed (an update queues the object again).
      log.error({ err: schedule.message, schedule: acj.spec.schedule }, 'unparsable schedule');
      return undefined;
    }
    const now = this.d.now();
    const times = scheduleTimes(schedule, acj, status.lastScheduleTime, now);
    if (times.tooMany) {
      this.d.recorder.event(
        asEventObject(acj),
        'Warning',
        'TooManyMissedTimes',
        'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
      );
      log.info('too many missed start times');
    }
    const scheduled: ReconcileResult | undefined =
      times.next === undefined ? undefined : { requeueAfterMs: Math.max(1, times.next - now) };
    if (times.missed === undefined) return scheduled;
    const deadline = acj.spec.startingDeadlineSeconds;
    if (deadline != null && times.missed + deadline * 1000 < now) {
      log.debug({ missed: kubeTime(times.missed) }, 'missed the starting deadline of the last run');
      return scheduled;
    }
    const policy = acj.spec.concurrencyPolicy;
    if (policy === 'Forbid' && active.length > 0) {
      log.debug({ active: active.length }, 'concurrency policy forbids a run while one is active');
      return scheduled;
    }
    if (policy === 'Replace')
      for (const run of active) await this.deleteRun(kind, run, log, 'replaced an active run');
    const run = runObject(acj, kind, times.missed);
    try {
      await this.d.client.create(kind.resource, run);
      log.info({ job: run.metadata?.name, kind: kind.kind }, 'created a run');
    } catch (err) {
      // The run of this start time exists already (the cache has not seen it yet).
      if (!isAlreadyExists(err)) throw err;
    }
    return scheduled;
  }

  private status(
    acj: AdvancedCronJob,
    kind: CronJobKind,
    active: KubeObject[],
    mostRecent: number | undefined,
  ): AdvancedCronJobStatus {
    const status: AdvancedCronJobStatus = { type: kind.kind };
    if (active.length) status.active = active.map((run) => runReference(kind, run));
    // The last schedule time never goes back (upstream forgets it when pruning removed every run,
    // and would then run a start time again).
    const recorded = Date.parse(acj.status?.lastScheduleTime ?? '');
    const last = Math.max(
      mostRecent ?? Number.NEGATIVE_INFINITY,
      Number.isNaN(recorded) ? Number.NEGATIVE_INFINITY : recorded,
    );
    if (Number.isFinite(last)) status.lastScheduleTime = kubeTime(last);
    return status;
  }

  /** Writes the status when it changed (a conflict is retried by the queue, from a fresher cache). */
  private async writeStatus(acj: AdvancedCronJob & KubeObject, status: AdvancedCronJobStatus): Promise<void> {
    // compared key-order independently: the API may return the fields in another order
    if (stableJson(status) === stableJson(acj.status ?? {})) return;
    try {
      await this.d.client.updateStatus(KruiseResources.AdvancedCronJob, { ...acj, status });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  private async deleteRun(kind: CronJobKind, run: KubeObject, log: Logger, message: string): Promise<void> {
    try {
      await this.d.client.delete(kind.resource, run.metadata?.namespace, run.metadata?.name ?? '', {
        propagationPolicy: 'Background',
      });
      log.info({ job: run.metadata?.name, kind: kind.kind }, message);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
