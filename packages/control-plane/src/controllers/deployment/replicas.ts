import { intPercentValue } from '@kruise/kube-compat/intstr';
import type { KubeObject } from '../../registry/types.ts';
import { DESIRED_REPLICAS, intAnnotation, MAX_REPLICAS } from './annotations.ts';

/** spec.replicas of a Deployment or ReplicaSet (1 when unset, as defaulted). */
export const specReplicas = (o: KubeObject | undefined): number => Number(o?.spec?.replicas ?? 1);
const statusOf = (o: KubeObject | undefined, field: string): number => Number(o?.status?.[field] ?? 0);

/** Whether the Deployment updates by RollingUpdate. */
export const isRollingUpdate = (d: KubeObject) =>
  (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';

/**
 * ResolveFenceposts: maxSurge (rounded up) and maxUnavailable (rounded down) of `replicas`, with
 * maxUnavailable 1 when both come out 0.
 */
export function fenceposts(
  d: KubeObject,
  replicas = specReplicas(d),
): { surge: number; unavailable: number } {
  const ru = d.spec?.strategy?.rollingUpdate ?? {};
  const surge = intPercentValue(ru.maxSurge ?? '25%', replicas, true);
  let unavailable = intPercentValue(ru.maxUnavailable ?? '25%', replicas, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** MaxSurge: extra pods a rolling update may run above replicas (0 for Recreate). */
export function maxSurge(d: KubeObject): number {
  return isRollingUpdate(d) ? fenceposts(d).surge : 0;
}

/** MaxUnavailable: pods a rolling update may have unavailable (0 for Recreate or 0 replicas), at most replicas. */
export function maxUnavailable(d: KubeObject): number {
  const replicas = specReplicas(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  return Math.min(fenceposts(d).unavailable, replicas);
}

/** Sum of spec.replicas. */
export const replicaCount = (sets: (KubeObject | undefined)[]) =>
  sets.reduce((n, rs) => n + (rs ? specReplicas(rs) : 0), 0);
/** Sum of status.replicas. */
export const actualReplicaCount = (sets: (KubeObject | undefined)[]) =>
  sets.reduce((n, rs) => n + statusOf(rs, 'replicas'), 0);
/** Sum of status.readyReplicas. */
export const readyReplicaCount = (sets: (KubeObject | undefined)[]) =>
  sets.reduce((n, rs) => n + statusOf(rs, 'readyReplicas'), 0);
/** Sum of status.availableReplicas. */
export const availableReplicaCount = (sets: (KubeObject | undefined)[]) =>
  sets.reduce((n, rs) => n + statusOf(rs, 'availableReplicas'), 0);

/** The ReplicaSets with spec.replicas above 0. */
export const activeSets = (sets: (KubeObject | undefined)[]): KubeObject[] =>
  sets.filter((rs): rs is KubeObject => rs !== undefined && specReplicas(rs) > 0);

const created = (rs: KubeObject) => Date.parse(rs.metadata?.creationTimestamp ?? '') || 0;
/** Oldest first, then by name (ReplicaSetsByCreationTimestamp). */
export const byCreation = (a: KubeObject, b: KubeObject) =>
  created(a) - created(b) || String(a.metadata?.name).localeCompare(String(b.metadata?.name));

/**
 * NewRSNewReplicas: the new ReplicaSet's size now. Recreate: replicas. RollingUpdate: as far up as
 * replicas + maxSurge leaves room for, never above replicas.
 */
export function newReplicaSetSize(d: KubeObject, all: (KubeObject | undefined)[], newRS: KubeObject): number {
  const replicas = specReplicas(d);
  if (!isRollingUpdate(d)) return replicas;
  const surge = intPercentValue(d.spec?.strategy?.rollingUpdate?.maxSurge ?? '25%', replicas, true);
  const current = replicaCount(all);
  const maxTotal = replicas + surge;
  if (current >= maxTotal) return specReplicas(newRS);
  return specReplicas(newRS) + Math.min(maxTotal - current, replicas - specReplicas(newRS));
}

/** IsSaturated: the new ReplicaSet runs every replica, all available. */
export function isSaturated(d: KubeObject, rs: KubeObject | undefined): boolean {
  if (!rs) return false;
  const replicas = specReplicas(d);
  return (
    specReplicas(rs) === replicas &&
    intAnnotation(rs, DESIRED_REPLICAS) === replicas &&
    statusOf(rs, 'availableReplicas') === replicas
  );
}

/**
 * FindActiveOrLatest: the one ReplicaSet with replicas (or, with none, the new one or the newest
 * old one); undefined when several have replicas.
 */
export function activeOrLatest(newRS: KubeObject | undefined, oldRSs: KubeObject[]): KubeObject | undefined {
  const olds = [...oldRSs].sort(byCreation);
  const active = activeSets([...olds, newRS]);
  if (active.length === 0) return newRS ?? olds[olds.length - 1];
  return active.length === 1 ? active[0] : undefined;
}

/**
 * GetProportion: the ReplicaSet's share of `toAdd` (negative when scaling down) in a proportional
 * scale, from its size relative to the Deployment's max-replicas annotation when it was last scaled.
 */
export function proportionOf(rs: KubeObject, d: KubeObject, toAdd: number, added: number): number {
  if (specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const replicas = specReplicas(d);
  let fraction: number;
  if (replicas === 0) fraction = -specReplicas(rs);
  else {
    const max = replicas + maxSurge(d);
    let before = intAnnotation(rs, MAX_REPLICAS) ?? 0;
    if (before === 0) before = Number(d.status?.replicas ?? 0);
    fraction = before === 0 ? 0 : Math.round((specReplicas(rs) * max) / before) - specReplicas(rs);
  }
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}
