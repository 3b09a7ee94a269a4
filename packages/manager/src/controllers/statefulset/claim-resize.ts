import type { StatefulSet, VolumeClaimStatus } from '@kruise/api';
import { claimName } from '@kruise/kube-compat/statefulset-identity';
import { parentAndOrdinal } from '@kruise/kube-compat/statefulset-ordinals';
import { Resources } from '@kruise/runtime';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import {
  compatibleAndReady,
  compatibleWithoutSize,
  expansionCompleted,
  needsExpansion,
} from './claim-compat.ts';
import type { StatefulSetDeps } from './context.ts';

/** Annotation on a claim the controller resized: its set, whose reconcile the claim's changes queue. */
export const PVC_OWNED_BY_ASTS_ANNOTATION = 'apps.kruise.io/owned-by-asts';

/**
 * Runs `fn` over the pod's existing claims that are not being deleted, with their templates, until
 * one answers false (upstream's handlePVCWithCustomFn); true when all did.
 */
async function eachClaim(
  d: StatefulSetDeps,
  set: StatefulSet,
  pod: Pod,
  fn: (claim: PersistentVolumeClaim, template: PersistentVolumeClaim) => boolean | Promise<boolean>,
): Promise<boolean> {
  const ordinal = parentAndOrdinal(pod.metadata?.name ?? '').ordinal;
  for (const template of set.spec?.volumeClaimTemplates ?? []) {
    const claim = d.claim(set.metadata?.namespace ?? '', claimName(set, template, ordinal));
    if (!claim || claim.metadata?.deletionTimestamp) continue;
    if (!(await fn(claim, template))) return false;
  }
  return true;
}

/** Whether every claim of the pod matches its template's size (no expansion due). */
export const claimsCompatible = (d: StatefulSetDeps, set: StatefulSet, pod: Pod) =>
  eachClaim(d, set, pod, (c, t) => compatibleWithoutSize(c, t) && !needsExpansion(c, t));

/** Whether every claim of the pod has the capacity it asks for. */
export const claimsReady = (d: StatefulSetDeps, set: StatefulSet, pod: Pod) =>
  eachClaim(d, set, pod, (c, t) => compatibleAndReady(c, t).ready);

/** Whether every claim's expansion is done (or waits only for the file system). */
export const claimsExpanded = (d: StatefulSetDeps, set: StatefulSet, pod: Pod) =>
  eachClaim(d, set, pod, (c, t) => expansionCompleted(c, t));

/**
 * Expands the pod's claims to their templates' storage request (upstream's TryPatchPVC): a claim
 * that differs in more than its size waits to be deleted (Warning FailedUpdatePVC); a storage class
 * without allowVolumeExpansion is an error.
 */
export async function expandClaims(d: StatefulSetDeps, set: StatefulSet, pod: Pod): Promise<void> {
  await eachClaim(d, set, pod, async (claim, template) => {
    if (compatibleWithoutSize(claim, template) && !needsExpansion(claim, template)) return true;
    const name = claim.metadata?.name ?? '';
    if (!compatibleWithoutSize(claim, template)) {
      d.event(
        set,
        'Warning',
        'FailedUpdatePVC',
        `failed to update pvc ${name}: contains diff other than spec resource, wait pvc to be deleted`,
      );
      throw new Error(
        `can not patch pvc ${name}: contains diff other than spec resource, wait pvc to be deleted`,
      );
    }
    const className = claim.spec?.storageClassName;
    if (className) {
      const sc = d.storageClass(className);
      if (!sc)
        throw new Error(`could not get sc ${className} for ${pod.metadata?.name} when checking PVC spec`);
      if (!sc.allowVolumeExpansion)
        throw new Error(
          `storage class ${className} for ${pod.metadata?.name} does not support volume expansion`,
        );
    }
    try {
      await d.client.mergePatch(Resources.PersistentVolumeClaim, claim.metadata?.namespace, name, {
        metadata: {
          annotations: { [PVC_OWNED_BY_ASTS_ANNOTATION]: set.metadata?.name },
          resourceVersion: claim.metadata?.resourceVersion,
        },
        spec: { resources: template.spec?.resources },
      });
      d.event(
        set,
        'Normal',
        'SuccessfulResize',
        `resize Claim ${name} Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} success`,
      );
    } catch (err) {
      d.event(
        set,
        'Warning',
        'FailedResize',
        `resize Claim ${name} for Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} failed error: ${(err as Error).message}`,
      );
      throw new Error(`could not update claim ${name}: ${(err as Error).message}`);
    }
    return true;
  });
}

/**
 * Per claim template: how many pods' claims ask for at least its storage, and how many of those have
 * it (upstream's updatePVCStatus).
 */
export async function volumeClaimsStatus(
  d: StatefulSetDeps,
  set: StatefulSet,
  pods: (Pod | undefined)[],
): Promise<VolumeClaimStatus[]> {
  const out = (set.spec?.volumeClaimTemplates ?? []).map((t) => ({
    volumeClaimName: t.metadata?.name ?? '',
    compatibleReplicas: 0,
    compatibleReadyReplicas: 0,
  }));
  const byName = new Map(out.map((s) => [s.volumeClaimName, s]));
  for (const pod of pods) {
    if (!pod) continue;
    await eachClaim(d, set, pod, (claim, template) => {
      const { compatible, ready } = compatibleAndReady(claim, template);
      const s = byName.get(template.metadata?.name ?? '')!;
      if (compatible) {
        s.compatibleReplicas++;
        if (ready) s.compatibleReadyReplicas++;
      }
      return true;
    });
  }
  return out;
}
