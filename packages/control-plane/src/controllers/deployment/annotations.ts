import type { KubeObject } from '../../registry/types.ts';

/** The revision of a Deployment and of each of its ReplicaSets. */
export const REVISION = 'deployment.kubernetes.io/revision';
/** The earlier revisions a ReplicaSet had (it was rolled back to). */
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
/** The Deployment's replicas when the ReplicaSet was last scaled. */
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
/** The Deployment's replicas plus maxSurge when the ReplicaSet was last scaled. */
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
/** What a user says caused the change (carried from the Deployment to its ReplicaSets). */
export const CHANGE_CAUSE = 'kubernetes.io/change-cause';
/** The longest revision-history annotation kept (kube-controller-manager's limit). */
export const MAX_REVISION_HISTORY_CHARS = 2000;

/** Annotations of a Deployment never copied to its ReplicaSets. */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);

/** A ReplicaSet's revision (0 when it has none or it is not a number). */
export function revisionOf(rs: KubeObject | undefined): number {
  const text = rs?.metadata?.annotations?.[REVISION];
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : 0;
}

/** The highest revision of `sets`. */
export function maxRevision(sets: KubeObject[]): number {
  return sets.reduce((max, rs) => Math.max(max, revisionOf(rs)), 0);
}

/** An int32 annotation, or undefined. */
export function intAnnotation(obj: KubeObject | undefined, key: string): number | undefined {
  const text = obj?.metadata?.annotations?.[key];
  return text !== undefined && /^-?\d+$/.test(text) ? Number(text) : undefined;
}

function annotationsOf(rs: KubeObject): Record<string, string> {
  rs.metadata ??= {};
  rs.metadata.annotations ??= {};
  return rs.metadata.annotations;
}

/** Sets desired-replicas and max-replicas; whether anything changed. */
export function setReplicasAnnotations(rs: KubeObject, desired: number, max: number): boolean {
  const a = annotationsOf(rs);
  let changed = false;
  for (const [k, v] of [
    [DESIRED_REPLICAS, String(desired)],
    [MAX_REPLICAS, String(max)],
  ] as const) {
    if (a[k] !== v) {
      a[k] = v;
      changed = true;
    }
  }
  return changed;
}

/**
 * kube-controller-manager's SetNewReplicaSetAnnotations on the new ReplicaSet (in place): the
 * Deployment's own annotations copied (change-cause among them), the revision raised to
 * `newRevision` (the old one kept in revision-history: a rollback), and for a ReplicaSet about to
 * be created the replicas annotations. Returns whether anything changed.
 */
export function setNewReplicaSetAnnotations(
  d: KubeObject,
  rs: KubeObject,
  newRevision: number,
  exists: boolean,
  maxReplicas: number,
): boolean {
  const a = annotationsOf(rs);
  let changed = false;
  for (const [k, v] of Object.entries<string>(d.metadata?.annotations ?? {})) {
    if (NOT_COPIED.has(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const oldText = a[REVISION];
  if (oldText !== undefined && !/^\d+$/.test(oldText)) return changed;
  const old = oldText === undefined ? 0 : Number(oldText);
  if (old < newRevision) {
    a[REVISION] = String(newRevision);
    changed = true;
    if (oldText !== undefined) {
      const history = a[REVISION_HISTORY] ?? '';
      if (!history) a[REVISION_HISTORY] = oldText;
      else {
        const revisions = history.split(',');
        let total = history.length + oldText.length + 1;
        let start = 0;
        while (total > MAX_REVISION_HISTORY_CHARS && start < revisions.length) {
          total -= revisions[start]!.length + 1;
          start++;
        }
        if (total <= MAX_REVISION_HISTORY_CHARS)
          a[REVISION_HISTORY] = [...revisions.slice(start), oldText].join(',');
      }
    }
  }
  const replicas = Number(d.spec?.replicas ?? 1);
  if (!exists && setReplicasAnnotations(rs, replicas, maxReplicas)) changed = true;
  return changed;
}
