import type { KubeObject } from '../../registry/types.ts';
import { finishedTime } from './job-pods.ts';

/** The delay before a Job re-creates pods after failures (kube-controller-manager's 10 s doubling, 10 min cap). */
export interface PodFailureBackoff {
  /** First delay (ms); kube-controller-manager's DefaultJobPodFailureBackOff is 10 s. */
  baseMs: number;
  /** Longest delay (ms); kube-controller-manager's MaxJobPodFailureBackOff is 10 min. */
  maxMs: number;
}

/** A Job's failures since its last success (kube-controller-manager keeps these in memory). */
export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  /** Epoch ms of the latest counted failure. */
  lastFailureTime?: number;
}

/** newBackoffRecord: folds newly finished pods into the record, a later success resetting the count. */
export function nextBackoffRecord(
  old: BackoffRecord | undefined,
  succeeded: KubeObject[],
  failed: KubeObject[],
): BackoffRecord {
  const record: BackoffRecord = { failuresAfterLastSuccess: 0, ...old };
  const failedTimes = failed.map(finishedTime).sort((a, b) => a - b);
  if (!succeeded.length) {
    if (!failedTimes.length) return record;
    return {
      failuresAfterLastSuccess: record.failuresAfterLastSuccess + failedTimes.length,
      lastFailureTime: failedTimes[failedTimes.length - 1],
    };
  }
  const lastSuccess = Math.max(...succeeded.map(finishedTime));
  const after = failedTimes.filter((t) => t > lastSuccess);
  return after.length
    ? { failuresAfterLastSuccess: after.length, lastFailureTime: after[after.length - 1] }
    : { failuresAfterLastSuccess: 0 };
}

/** How long until pods may be created again (0: now). */
export function remainingBackoff(record: BackoffRecord, backoff: PodFailureBackoff, now: number): number {
  if (!record.failuresAfterLastSuccess || record.lastFailureTime === undefined) return 0;
  let delay = backoff.baseMs;
  for (let i = 1; i < record.failuresAfterLastSuccess; i++) {
    delay *= 2;
    if (delay >= backoff.maxMs) {
      delay = backoff.maxMs;
      break;
    }
  }
  const elapsed = now - record.lastFailureTime;
  return delay < elapsed ? 0 : delay - elapsed;
}
