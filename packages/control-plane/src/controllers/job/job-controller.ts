import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../../registry/types.ts';
import type { ChangeEvent } from '../../store/store.ts';
import { controllerEvent } from '../controller-events.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import type { BackoffRecord, PodFailureBackoff } from './backoff.ts';
import { isJobFinished } from './conditions.ts';
import { hasTrackingFinalizer, JOB_TRACKING_FINALIZER } from './job-pods.ts';
import { type JobActions, syncJob } from './job-sync.ts';
import { podForJob } from './pod-template.ts';

const JOB_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:job-controller',
  groups: ['system:serviceaccounts'],
};
const COMPONENT = 'job-controller';
/** The store's key of batch/v1 Jobs. */
export const JOB_RESOURCE = 'batch/jobs';
const JOB_MANAGER = 'kubernetes.io/job-controller';

/** How the Job controller backs off pod re-creation after failures. */
export interface JobControllerOptions {
  /** First back-off after a pod failure (ms; kube-controller-manager's 10 s). */
  jobPodFailureBackoffMs?: number;
  /** Longest back-off (ms; kube-controller-manager's 10 min). */
  jobPodFailureMaxBackoffMs?: number;
}

const controllerUid = (obj: KubeObject): string | undefined =>
  (obj.metadata?.ownerReferences ?? []).find((r: { controller?: boolean }) => r.controller)?.uid;

/**
 * kube-controller-manager's Job controller (batch/v1, Kubernetes 1.33): runs each Job's pods
 * to its completions, within parallelism, backoffLimit, activeDeadlineSeconds, podFailurePolicy
 * and suspension, tracking them with the `batch.kubernetes.io/job-tracking` finalizer.
 */
export class JobController extends BuiltinController {
  private readonly backoff: PodFailureBackoff;
  private readonly records = new Map<string, BackoffRecord>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly unsubscribe: (() => void)[];
  private readonly jobType: ResourceType;
  private readonly podType: ResourceType;
  private stopped = false;

  constructor(deps: ControllerDeps, options: JobControllerOptions = {}) {
    super(deps);
    this.backoff = {
      baseMs: options.jobPodFailureBackoffMs ?? 10_000,
      maxMs: options.jobPodFailureMaxBackoffMs ?? 600_000,
    };
    this.jobType = deps.registry.byResource('batch', 'jobs')!;
    this.podType = deps.registry.byResource('', 'pods')!;
    this.unsubscribe = [
      deps.store.subscribe(JOB_RESOURCE, {
        onChange: (e) => this.enqueue(`${e.namespace}/${e.obj.metadata?.name}`),
      }),
      deps.store.subscribe('/pods', { onChange: (e) => this.observePod(e) }),
    ];
    for (const { obj } of deps.store.list(JOB_RESOURCE))
      this.enqueue(`${obj.metadata?.namespace}/${obj.metadata?.name}`);
    for (const { obj } of deps.store.list('/pods'))
      if (hasTrackingFinalizer(obj)) void this.releaseOrphan(obj);
  }

  /** Stops syncing. */
  stop(): void {
    this.stopped = true;
    for (const u of this.unsubscribe) u();
    for (const t of this.timers.values()) clearTimeout(t);
  }

  private observePod(e: ChangeEvent): void {
    const pod = e.obj;
    const job = this.ownerOf(pod);
    if (job && !isJobFinished(job)) this.enqueue(`${pod.metadata?.namespace}/${job.metadata?.name}`);
    else if (e.type !== 'DELETED' && hasTrackingFinalizer(pod)) void this.releaseOrphan(pod);
  }

  private ownerOf(pod: KubeObject): KubeObject | undefined {
    const uid = controllerUid(pod);
    const ref = (pod.metadata?.ownerReferences ?? []).find((r: { uid?: string }) => r.uid === uid);
    if (!uid || ref?.kind !== 'Job') return undefined;
    const job = this.store.get(JOB_RESOURCE, pod.metadata?.namespace, ref.name)?.obj;
    return job?.metadata?.uid === uid ? job : undefined;
  }

  /** Queues a sync of `key` (namespace/name), at once or after `delayMs`. */
  private enqueue(key: string, delayMs = 0): void {
    if (this.stopped) return;
    if (delayMs > 0) {
      clearTimeout(this.timers.get(key));
      const timer = setTimeout(() => {
        this.timers.delete(key);
        this.enqueue(key);
      }, delayMs);
      timer.unref();
      this.timers.set(key, timer);
      return;
    }
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.running.add(key);
    setImmediate(() => void this.run(key));
  }

  private async run(key: string): Promise<void> {
    try {
      await this.sync(key);
    } catch {
      // a conflict or a refused write: the next event or the retry brings it back
      this.enqueue(key, 1000);
    } finally {
      this.running.delete(key);
      if (this.dirty.delete(key)) this.enqueue(key);
    }
  }

  private async sync(key: string): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    const job = this.store.get(JOB_RESOURCE, namespace, name)?.obj;
    if (!job) {
      this.records.delete(key);
      return;
    }
    const managedBy = job.spec?.managedBy;
    if (managedBy && managedBy !== JOB_MANAGER) return;
    const pods = this.store
      .list('/pods', namespace)
      .map((e) => e.obj)
      .filter((p) => controllerUid(p) === job.metadata?.uid);
    if (isJobFinished(job)) {
      this.records.delete(key);
      for (const p of pods) if (hasTrackingFinalizer(p)) await this.removeFinalizer(p);
      return;
    }
    const mode = job.spec?.completionMode ?? 'NonIndexed';
    if (mode !== 'NonIndexed' && mode !== 'Indexed') {
      this.event(
        job,
        'Warning',
        'UnknownCompletionMode',
        'Skipped Job sync because completion mode is unknown',
      );
      return;
    }
    await syncJob(job, pods, this.actions(key));
  }

  private actions(key: string): JobActions {
    return {
      backoff: this.backoff,
      record: this.records.get(key),
      saveRecord: (r) => this.records.set(key, r),
      requeueAfter: (ms) => this.enqueue(key, Math.max(1, ms)),
      event: (job, type, reason, message) => this.event(job, type, reason, message),
      createPod: (job, index, annotations) => this.createPod(job, index, annotations),
      deletePod: (job, pod, dropFinalizer) => this.deletePod(job, pod, dropFinalizer),
      removeFinalizer: (pod) => this.removeFinalizer(pod),
      writeStatus: (job, status) => this.writeStatus(job, status),
    };
  }

  private event(job: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const events = this.registry.byResource('', 'events')!;
    const subject = { apiVersion: 'batch/v1', kind: 'Job', ...job };
    void this.objects
      .create(events, job.metadata?.namespace, controllerEvent(subject, COMPONENT, type, reason, message), {
        user: JOB_USER,
      })
      .catch(() => undefined);
  }

  private async createPod(
    job: KubeObject,
    index: number,
    annotations?: Record<string, string>,
  ): Promise<boolean> {
    try {
      const pod = await this.objects.create(
        this.podType,
        job.metadata?.namespace,
        podForJob(job, index, annotations),
        {
          user: JOB_USER,
        },
      );
      this.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata?.name}`);
      return true;
    } catch (err) {
      this.event(job, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
      return false;
    }
  }

  private async deletePod(job: KubeObject, pod: KubeObject, dropFinalizer: boolean): Promise<boolean> {
    if (dropFinalizer && !(await this.removeFinalizer(pod))) return false;
    try {
      await this.objects.delete(this.podType, pod.metadata?.namespace, pod.metadata?.name, {
        user: JOB_USER,
        preconditions: { uid: pod.metadata?.uid },
      });
      this.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata?.name}`);
      return true;
    } catch (err) {
      if ((err as { code?: number }).code === 404) return true;
      this.event(job, 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`);
      return false;
    }
  }

  private async removeFinalizer(pod: KubeObject): Promise<boolean> {
    try {
      await this.objects.update(
        this.podType,
        pod.metadata?.namespace,
        pod.metadata?.name,
        {
          patch: (cur) => {
            if (cur.metadata?.uid !== pod.metadata?.uid || !hasTrackingFinalizer(cur)) return cur;
            const finalizers = (cur.metadata?.finalizers ?? []).filter(
              (f: string) => f !== JOB_TRACKING_FINALIZER,
            );
            const metadata = { ...cur.metadata, finalizers };
            if (!finalizers.length) delete metadata.finalizers;
            return { ...cur, metadata };
          },
        },
        { user: JOB_USER },
      );
      return true;
    } catch (err) {
      return (err as { code?: number }).code === 404;
    }
  }

  /** An orphan (its Job gone, or finished) keeps no tracking finalizer. */
  private async releaseOrphan(pod: KubeObject): Promise<void> {
    const job = this.ownerOf(pod);
    if (job && !isJobFinished(job)) return;
    await this.removeFinalizer(pod);
  }

  private async writeStatus(job: KubeObject, status: KubeObject): Promise<KubeObject> {
    const rv = job.metadata?.resourceVersion;
    return this.objects.update(
      this.jobType,
      job.metadata?.namespace,
      job.metadata?.name,
      {
        patch: (cur) => {
          if (cur.metadata?.resourceVersion !== rv) throw new Error('the Job changed since it was read');
          return { ...cur, status: structuredClone(status) };
        },
      },
      { user: JOB_USER, subresource: 'status' },
    );
  }
}
