import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../../registry/types.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import { findCondition, isJobFinished } from './conditions.ts';
import { JOB_RESOURCE } from './job-controller.ts';

const TTL_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:ttl-after-finished-controller',
  groups: ['system:serviceaccounts'],
};

/** When a finished Job's TTL runs out (epoch ms), or undefined when it has none or is not finished. */
export function ttlExpiry(job: KubeObject): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl == null || job.metadata?.deletionTimestamp || !isJobFinished(job)) return undefined;
  const condition = findCondition(job, 'Complete')?.status === 'True' ? 'Complete' : 'Failed';
  const finishedAt = Date.parse(
    job.status?.completionTime && condition === 'Complete'
      ? job.status.completionTime
      : (findCondition(job, condition)?.lastTransitionTime ?? ''),
  );
  if (Number.isNaN(finishedAt)) return undefined;
  return finishedAt + ttl * 1000;
}

/**
 * kube-controller-manager's TTL-after-finished controller: deletes a finished Job (Complete or
 * Failed) `spec.ttlSecondsAfterFinished` seconds after it finished, in the foreground, so its pods
 * go first; the uid precondition keeps a re-created Job of the same name safe.
 */
export class TtlAfterFinishedController extends BuiltinController {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly unsubscribe: () => void;
  private readonly jobType: ResourceType;

  constructor(deps: ControllerDeps) {
    super(deps);
    this.jobType = deps.registry.byResource('batch', 'jobs')!;
    this.unsubscribe = deps.store.subscribe(JOB_RESOURCE, {
      onChange: (e) => (e.type === 'DELETED' ? this.forget(e.obj) : this.schedule(e.obj)),
    });
    for (const { obj } of deps.store.list(JOB_RESOURCE)) this.schedule(obj);
  }

  /** Stops the timers. */
  stop(): void {
    this.unsubscribe();
    for (const t of this.timers.values()) clearTimeout(t);
  }

  private forget(job: KubeObject): void {
    const uid = job.metadata?.uid;
    clearTimeout(this.timers.get(uid));
    this.timers.delete(uid);
  }

  private schedule(job: KubeObject): void {
    const expiry = ttlExpiry(job);
    this.forget(job);
    if (expiry === undefined) return;
    const timer = setTimeout(() => void this.expire(job), Math.max(0, expiry - Date.now()));
    timer.unref();
    this.timers.set(job.metadata?.uid, timer);
  }

  private async expire(stale: KubeObject): Promise<void> {
    this.timers.delete(stale.metadata?.uid);
    const { namespace, name, uid } = stale.metadata ?? {};
    // Re-read: the TTL or the Job may have changed since the timer was set.
    const job = this.store.get(JOB_RESOURCE, namespace, name)?.obj;
    if (!job || job.metadata?.uid !== uid) return;
    const expiry = ttlExpiry(job);
    if (expiry === undefined) return;
    if (expiry > Date.now()) {
      this.schedule(job);
      return;
    }
    try {
      await this.objects.delete(this.jobType, namespace, name, {
        user: TTL_USER,
        propagationPolicy: 'Foreground',
        preconditions: { uid },
      });
    } catch {
      // gone already, or changed: its next event reschedules it
    }
  }
}
