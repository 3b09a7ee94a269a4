import type { FeatureGates } from '@kruise/api';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** The label that protects an object from deletion (upstream's `policy.kruise.io/delete-protection`). */
export const DELETION_PROTECTION_LABEL = 'policy.kruise.io/delete-protection';

/** The object is deleted only when the label is gone. */
export const PROTECTION_ALWAYS = 'Always';

/** The object is deleted only when it has no dependants (replicas, pods, Bound PVCs, CRs). */
export const PROTECTION_CASCADING = 'Cascading';

const FORBIDDEN = `forbidden by ResourcesProtectionDeletion for ${DELETION_PROTECTION_LABEL}`;

/** Anything with metadata. */
export interface Protected {
  metadata?: ObjectMeta;
}

/**
 * The label's value when deletion protection decides the object's deletion: gate
 * ResourcesDeletionProtection on and the object not already being deleted; undefined otherwise.
 */
export function protection(gates: FeatureGates, obj: Protected | undefined): string | undefined {
  if (!gates.enabled('ResourcesDeletionProtection') || !obj || obj.metadata?.deletionTimestamp)
    return undefined;
  return obj.metadata?.labels?.[DELETION_PROTECTION_LABEL];
}

/** Upstream's denial for `Always`. */
export function alwaysDenial(value: string): string {
  return `${FORBIDDEN}=${value}`;
}

/** Upstream's denial for `Cascading` with dependants left, e.g. `replicas 3>0`. */
export function cascadingDenial(value: string, dependants: string, count: number): string {
  return `${FORBIDDEN}=${value} and ${dependants} ${count}>0`;
}

/**
 * A workload's deletion (Deployment, ReplicaSet, StatefulSet, CloneSet, Advanced StatefulSet):
 * `Always` denies, `Cascading` denies while `spec.replicas` > 0 (an unset replicas passes, as
 * upstream). Returns the denial message, or undefined to let the deletion go.
 */
export function workloadDeletionDenial(
  gates: FeatureGates,
  obj: (Protected & { spec?: { replicas?: number } }) | undefined,
): string | undefined {
  const value = protection(gates, obj);
  if (value === PROTECTION_ALWAYS) return alwaysDenial(value);
  const replicas = obj?.spec?.replicas;
  if (value === PROTECTION_CASCADING && typeof replicas === 'number' && replicas > 0)
    return cascadingDenial(value, 'replicas', replicas);
  return undefined;
}

/** A Service's or Ingress's deletion: only `Always` protects them. */
export function alwaysOnlyDeletionDenial(
  gates: FeatureGates,
  obj: Protected | undefined,
): string | undefined {
  const value = protection(gates, obj);
  return value === PROTECTION_ALWAYS ? alwaysDenial(value) : undefined;
}

/**
 * What decides a deletion whose `Cascading` test needs lookups (namespaces, CRDs): `{ denial }` for
 * `Always`, `{ cascading }` (the label value) when the dependants decide, undefined to let it go.
 */
export function cascadingProtection(
  gates: FeatureGates,
  obj: Protected | undefined,
): { denial: string } | { cascading: string } | undefined {
  const value = protection(gates, obj);
  if (value === PROTECTION_ALWAYS) return { denial: alwaysDenial(value) };
  return value === PROTECTION_CASCADING ? { cascading: value } : undefined;
}

/**
 * Counts a `Cascading` object's dependants with `count` (a lookup): the denial while some remain,
 * `failure(error text)` when the lookup fails, undefined when none remain.
 */
export async function dependantsDenial(
  value: string,
  dependants: string,
  count: () => Promise<number>,
  failure: (error: string) => string,
): Promise<string | undefined> {
  let n: number;
  try {
    n = await count();
  } catch (err) {
    return failure(err instanceof Error ? err.message : String(err));
  }
  return n > 0 ? cascadingDenial(value, dependants, n) : undefined;
}
