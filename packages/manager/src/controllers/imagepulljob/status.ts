import type { ImagePullJob, ImagePullJobStatus, NodeImage } from '@kruise/api';

import { kubeTime } from '@kruise/kube-compat';

/** A job's view of one NodeImage: not synced yet, or the phase of the tag version it asked for. */
export type NodeState = 'notSynced' | 'active' | 'succeeded' | 'failed';

/** Inputs of the status arithmetic. */
export interface StatusInput {
  job: ImagePullJob;
  nodeImages: NodeImage[];
  image: { name: string; tag: string };
  /** Secret references the job's tag must carry (shared copies in the daemon config namespace). */
  secretRefs: { namespace?: string; name?: string }[];
  /** NodeImages this controller synced that the cache has not shown yet (counted as active). */
  pendingNodes: Set<string>;
  now: Date;
}

/** The outcome: new status, per-node states, and whether the job is done. */
export interface StatusResult {
  status: ImagePullJobStatus;
  states: Map<string, NodeState>;
  completed: boolean;
}

/** The state of one NodeImage for a job, from its spec tag (owner, secrets) and the status of that version. */
export function nodeState(
  ni: NodeImage,
  input: Pick<StatusInput, 'job' | 'image' | 'secretRefs'>,
): NodeState {
  const uid = input.job.metadata?.uid;
  const spec = ni.spec?.images?.[input.image.name];
  const tag = spec?.tags?.find((t) => t.tag === input.image.tag);
  if (!tag || !(tag.ownerReferences ?? []).some((o) => o.uid === uid)) return 'notSynced';
  const refs = new Set((spec?.pullSecrets ?? []).map((s) => `${s.namespace}/${s.name}`));
  if (input.secretRefs.some((s) => !refs.has(`${s.namespace}/${s.name}`))) return 'notSynced';
  const status = ni.status?.imageStatuses?.[input.image.name]?.tags?.find(
    (t) => t.tag === input.image.tag && (t.version ?? 0) === (tag.version ?? 0),
  );
  if (status?.phase === 'Succeeded') return 'succeeded';
  if (status?.phase === 'Failed') return 'failed';
  return 'active';
}

/**
 * Upstream's status arithmetic: a node counts once the job's tag (with its secrets) is on its
 * NodeImage; not-yet-reported nodes are active; the deadline fails what is left; zero nodes
 * completes at once (unless Never); the message reports progress.
 */
export function calculateStatus(input: StatusInput): StatusResult {
  const { job, now } = input;
  const prev = job.status ?? { desired: 0 };
  const states = new Map<string, NodeState>();
  let active = 0;
  let succeeded = 0;
  let failed = 0;
  const failedNodes: string[] = [];
  const notSynced: string[] = [];
  for (const ni of input.nodeImages) {
    const name = ni.metadata?.name ?? '';
    let state = nodeState(ni, input);
    if (state === 'notSynced' && input.pendingNodes.has(name)) state = 'active';
    states.set(name, state);
    if (state === 'active') active++;
    else if (state === 'succeeded') succeeded++;
    else if (state === 'failed') {
      failed++;
      failedNodes.push(name);
    } else notSynced.push(name);
  }
  const desired = input.nodeImages.length;
  const startTime = prev.startTime ?? kubeTime(now);
  const policy = job.spec?.completionPolicy ?? {};
  const type = policy.type ?? 'Always';
  const status: ImagePullJobStatus = { ...prev, startTime, desired, active, succeeded, failed };
  const deadline = policy.activeDeadlineSeconds;
  const remaining = desired - succeeded - failed;
  if (
    type === 'Always' &&
    deadline !== undefined &&
    deadline !== null &&
    remaining > 0 &&
    now.getTime() - Date.parse(startTime) >= deadline * 1000
  ) {
    status.completionTime = kubeTime(now);
    status.failed = failed + active + notSynced.length;
    status.active = 0;
    status.failedNodes = [
      ...failedNodes,
      ...[...states].filter(([, s]) => s === 'active' || s === 'notSynced').map(([n]) => n),
    ].sort();
    status.message = 'job exceeds activeDeadlineSeconds';
    return { status, states, completed: true };
  }
  status.failedNodes = failedNodes.sort();
  if (status.failedNodes.length === 0) delete status.failedNodes;
  let completed = false;
  if (type !== 'Never' && remaining === 0) {
    status.completionTime = status.completionTime ?? kubeTime(now);
    completed = true;
  }
  status.message = completed
    ? 'job has completed'
    : desired === 0
      ? 'job is running, no progress'
      : `job is running, progress ${(((succeeded + failed) / desired) * 100).toFixed(1)}%`;
  return { status, states, completed };
}
