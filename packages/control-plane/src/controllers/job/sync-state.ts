import type { KubeObject } from '../../registry/types.ts';
import type { BackoffRecord, PodFailureBackoff } from './backoff.ts';
import type { JobCondition } from './conditions.ts';
import type { IndexIntervals } from './indexes.ts';
import { completionIndex } from './job-pods.ts';

/** What a Job's sync does to the world; the controller supplies it. */
export interface JobActions {
  /** Creates a pod (index -1 for NonIndexed); resolves false when the API refused it. */
  createPod(job: KubeObject, index: number, annotations?: Record<string, string>): Promise<boolean>;
  /** Deletes a pod; with `dropFinalizer` its tracking finalizer goes first. Resolves whether it is gone or going. */
  deletePod(job: KubeObject, pod: KubeObject, dropFinalizer: boolean): Promise<boolean>;
  /** Removes the tracking finalizer; resolves whether it is gone. */
  removeFinalizer(pod: KubeObject): Promise<boolean>;
  /** Writes `status` to the Job as read (a conflict throws); resolves with the stored Job. */
  writeStatus(job: KubeObject, status: KubeObject): Promise<KubeObject>;
  /** Records an Event on the Job. */
  event(job: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** Syncs the Job again after `ms`. */
  requeueAfter(ms: number): void;
  backoff: PodFailureBackoff;
  record: BackoffRecord | undefined;
  saveRecord(record: BackoffRecord): void;
}

/** Everything one sync computes about a Job and its pods (upstream's syncJobCtx). */
export interface SyncState {
  job: KubeObject;
  status: KubeObject;
  pods: KubeObject[];
  active: KubeObject[];
  ready: number;
  terminating: number;
  uncountedSucceeded: Set<string>;
  uncountedFailed: Set<string>;
  succeeded: number;
  failed: number;
  finished: JobCondition | undefined;
  prevSucceededIndexes: IndexIntervals;
  succeededIndexes: IndexIntervals;
  failedIndexes: IndexIntervals | undefined;
  /** Per index, the latest failed pod whose finalizer waits for its replacement (backoffLimitPerIndex). */
  delayed: Map<number, KubeObject>;
  newRecord: BackoffRecord;
}

/** A pod's uid. */
export const uid = (p: KubeObject): string => p.metadata?.uid;
/** completionMode Indexed. */
export const isIndexed = (job: KubeObject) => job.spec?.completionMode === 'Indexed';
/** spec.suspend. */
export const suspended = (job: KubeObject) => job.spec?.suspend === true;
/** podReplacementPolicy Failed: terminating pods are not replaced. */
export const onlyReplaceFailed = (job: KubeObject) => job.spec?.podReplacementPolicy === 'Failed';
/** spec.completions (0 when unset). */
export const completionsOf = (job: KubeObject): number => job.spec?.completions ?? 0;

/** The pod's completion index is within completions. */
export function validIndex(job: KubeObject, pod: KubeObject): boolean {
  const ix = completionIndex(pod);
  return ix >= 0 && ix < completionsOf(job);
}
