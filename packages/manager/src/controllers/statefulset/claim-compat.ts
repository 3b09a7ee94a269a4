import { parseQuantity, quantityMilliValue } from '@kruise/kube-compat';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';

/**
 * How a claim compares with its template when claims are resized with the template (gate
 * StatefulSetAutoResizePVCGate, volumeClaimUpdateStrategy OnPodRollingUpdate), as upstream
 * compares them: only the storage request may differ; a larger request in the template is an
 * expansion of the claim.
 */

const storage = (q: Record<string, string | number> | undefined) => {
  const text = q?.storage;
  const parsed = text === undefined ? undefined : parseQuantity(String(text));
  return parsed ? quantityMilliValue(parsed) : undefined;
};

/** Same storage class (when both name one) and the same access modes, in order. */
export function compatibleWithoutSize(
  claim: PersistentVolumeClaim,
  template: PersistentVolumeClaim,
): boolean {
  const a = claim.spec?.storageClassName;
  const b = template.spec?.storageClassName;
  if (a !== undefined && b !== undefined && a !== b) return false;
  const am = claim.spec?.accessModes ?? [];
  const bm = template.spec?.accessModes ?? [];
  return am.length === bm.length && am.every((m, i) => bm[i] === m);
}

/** Whether the claim asks for less storage than the template (it needs an expansion). */
export function needsExpansion(claim: PersistentVolumeClaim, template: PersistentVolumeClaim): boolean {
  const have = storage(claim.spec?.resources?.requests);
  const want = storage(template.spec?.resources?.requests);
  return have !== undefined && want !== undefined && have < want;
}

/**
 * Compatible: it asks for at least the template's storage; ready: its capacity reached what it asks
 * for (upstream's IsPVCCompatibleAndReady).
 */
export function compatibleAndReady(
  claim: PersistentVolumeClaim,
  template: PersistentVolumeClaim,
): { compatible: boolean; ready: boolean } {
  if (!compatibleWithoutSize(claim, template)) return { compatible: false, ready: false };
  const asked = storage(claim.spec?.resources?.requests);
  const wanted = storage(template.spec?.resources?.requests);
  const capacity = storage(claim.status?.capacity);
  return {
    compatible: asked !== undefined && wanted !== undefined && asked >= wanted,
    ready: capacity !== undefined && asked !== undefined && capacity >= asked,
  };
}

/** Whether the claim's expansion is done, or waits only for the pod's file system (FileSystemResizePending). */
export function expansionCompleted(claim: PersistentVolumeClaim, template: PersistentVolumeClaim): boolean {
  const { compatible, ready } = compatibleAndReady(claim, template);
  if (!compatible) return false;
  return (
    ready ||
    (claim.status?.conditions ?? []).some((c) => c.type === 'FileSystemResizePending' && c.status === 'True')
  );
}
