import type { KubeObject } from '../../registry/types.ts';
import { nextBackoffRecord, remainingBackoff } from './backoff.ts';
import { ensureCondition, type JobCondition } from './conditions.ts';
import {
  absoluteFailureCount,
  firstPendingIndexes,
  indexesToRemove,
  replacementAnnotations,
} from './indexed.ts';
import { isReady, removalOrder } from './job-pods.ts';
import { isIndexed, type JobActions, onlyReplaceFailed, type SyncState, suspended } from './sync-state.ts';

const SUSPENDED = 'Suspended';

/** manageJob: deletes surplus (or, suspended, all) active pods, else creates the missing ones after back-off. */
export async function manageJob(s: SyncState, act: JobActions): Promise<number> {
  const { job } = s;
  let active = s.active.length;
  const drop = async (pods: KubeObject[]) => {
    for (const p of pods) {
      if (!(await act.deletePod(job, p, true))) continue;
      active--;
      s.terminating++;
      if (isReady(p)) s.ready--;
    }
    return active;
  };
  if (suspended(job)) return drop(s.active);
  const parallelism = job.spec?.parallelism ?? 1;
  const completions = job.spec?.completions;
  let want: number;
  if (completions == null) want = s.succeeded > 0 ? active : parallelism;
  else want = Math.max(0, Math.min(parallelism, completions - s.succeeded));
  const surplus = Math.max(0, active - want);
  const remove = isIndexed(job) ? indexesToRemove(job, s.active) : [];
  if (remove.length < surplus) {
    const left = s.active.filter((p) => !remove.includes(p)).sort(removalOrder);
    remove.push(...left.slice(0, surplus - remove.length));
  }
  if (remove.length) return drop(remove);
  const terminating = onlyReplaceFailed(job) ? s.terminating : 0;
  let diff = want - terminating - active;
  if (diff <= 0) return active;
  if (job.spec?.backoffLimitPerIndex == null) {
    const wait = remainingBackoff(s.newRecord, act.backoff, Date.now());
    if (wait > 0) {
      act.requeueAfter(wait);
      return active;
    }
  }
  let indexes: number[] = [];
  if (isIndexed(job)) {
    indexes = firstPendingIndexes(job, s, Math.min(diff, 500));
    if (job.spec?.backoffLimitPerIndex != null) {
      const ready = indexes.filter((ix) => remainingBackoffPerIndex(s, ix, act) === 0);
      if (!ready.length && indexes.length) {
        act.requeueAfter(Math.min(...indexes.map((ix) => remainingBackoffPerIndex(s, ix, act))));
        return active;
      }
      indexes = ready;
    }
    diff = indexes.length;
  }
  // Slow start: batches of 1, 2, 4 …, stopping after a batch with a refusal.
  for (let batch = Math.min(diff, 1), done = 0; done < diff; batch = Math.min(batch * 2, diff - done)) {
    const results = await Promise.all(
      Array.from({ length: batch }, (_, i) => {
        const ix = isIndexed(job) ? indexes[done + i]! : -1;
        return act.createPod(job, ix, ix >= 0 ? replacementAnnotations(job, s.delayed.get(ix)) : {});
      }),
    );
    done += batch;
    active += results.filter(Boolean).length;
    if (results.some((ok) => !ok)) break;
  }
  return active;
}

function remainingBackoffPerIndex(s: SyncState, index: number, act: JobActions): number {
  const last = s.delayed.get(index);
  if (!last) return 0;
  const failures = absoluteFailureCount(last) + 1;
  return remainingBackoff(
    {
      failuresAfterLastSuccess: failures,
      lastFailureTime: nextBackoffRecord(undefined, [], [last]).lastFailureTime,
    },
    act.backoff,
    Date.now(),
  );
}

/** The Suspended condition, its events, and the new startTime of a resumed Job. */
export function syncSuspended(s: SyncState, act: JobActions): boolean {
  s.status.conditions ??= [];
  const conditions: JobCondition[] = s.status.conditions;
  if (suspended(s.job)) {
    if (!ensureCondition(conditions, SUSPENDED, 'True', 'JobSuspended', 'Job suspended')) return false;
    act.event(s.job, 'Normal', 'Suspended', 'Job suspended');
    return true;
  }
  if (!ensureCondition(conditions, SUSPENDED, 'False', 'JobResumed', 'Job resumed')) return false;
  act.event(s.job, 'Normal', 'Resumed', 'Job resumed');
  s.status.startTime = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return true;
}
