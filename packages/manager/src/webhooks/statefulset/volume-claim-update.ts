import type { StatefulSet } from '@kruise/api';
import { quantitiesEqual } from '@kruise/kube-compat';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { type FieldError, forbidden, invalid } from '../field-errors.ts';
import { goClaim, goClaims } from './go-values.ts';

/** Reads StorageClasses for the resize checks; each throws when the API cannot answer. */
export interface StorageClassLookup {
  get(name: string): Promise<StorageClass>;
  list(): Promise<StorageClass[]>;
}

const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

/** The default StorageClass (the newest of those marked default), as upstream picks it. */
function defaultStorageClass(classes: StorageClass[]): StorageClass | undefined {
  let chosen: StorageClass | undefined;
  for (const sc of classes) {
    if (sc.metadata?.annotations?.[DEFAULT_CLASS_ANNOTATION] !== 'true') continue;
    const time = (c: StorageClass | undefined) => Date.parse(c?.metadata?.creationTimestamp ?? '') || 0;
    if (!chosen || time(chosen) < time(sc)) chosen = sc;
  }
  return chosen;
}

/** Same storage class (when both name one) and the same access modes, in order. */
function compatibleWithoutSize(old: PersistentVolumeClaim, claim: PersistentVolumeClaim): boolean {
  const a = old.spec?.storageClassName;
  const b = claim.spec?.storageClassName;
  if (a !== undefined && a !== null && b !== undefined && b !== null && a !== b) return false;
  const modesA = old.spec?.accessModes ?? [];
  const modesB = claim.spec?.accessModes ?? [];
  return modesA.length === modesB.length && modesA.every((m, i) => m === modesB[i]);
}

/** Whether the storage request or limit differs. */
function resized(old: PersistentVolumeClaim, claim: PersistentVolumeClaim): boolean {
  const storage = (c: PersistentVolumeClaim, k: 'requests' | 'limits') =>
    c.spec?.resources?.[k]?.storage ?? '0';
  return (['requests', 'limits'] as const).some((k) => !quantitiesEqual(storage(old, k), storage(claim, k)));
}

/**
 * Upstream's ValidateVolumeClaimTemplateUpdate (gate StatefulSetAutoResizePVCGate): with
 * volumeClaimUpdateStrategy OnPodRollingUpdate, claim templates may not be added, removed or
 * renamed, and may change only in size, where their storage class allows expansion. The first
 * error only, as upstream. Upstream reads the strategy after its update check has put the old
 * spec's back, so the old object's strategy decides.
 */
export async function volumeClaimTemplateUpdateErrors(
  sts: StatefulSet,
  old: StatefulSet,
  storage: StorageClassLookup,
): Promise<FieldError[]> {
  const type = old.spec?.volumeClaimUpdateStrategy?.type ?? '';
  if (!type || type === 'OnDelete') return [];
  const claims = sts.spec?.volumeClaimTemplates ?? [];
  const oldClaims = old.spec?.volumeClaimTemplates ?? [];
  if (claims.length !== oldClaims.length)
    return [
      invalid(
        'spec.volumeClaimTemplates',
        goClaims(claims),
        'volumeClaimTemplate can not be added or deleted when OnRollingUpdate',
      ),
    ];
  // (A null entry is decoded as an empty claim, as Go decodes it.)
  const byName = new Map(oldClaims.map((c) => [c?.metadata?.name ?? '', c ?? {}]));
  for (const entry of claims) {
    const claim: PersistentVolumeClaim = entry ?? {};
    const at = `spec.volumeClaimTemplates[${claim.metadata?.name ?? ''}]`;
    const before = byName.get(claim.metadata?.name ?? '');
    if (!before) return [forbidden(`${at}.name`, 'volumeClaimTemplate name can not be modified')];
    if (!compatibleWithoutSize(before, claim))
      return [invalid(at, goClaim(claim), 'volumeClaimTemplate can not be modified when OnRollingUpdate')];
    if (!resized(before, claim)) continue;
    const name = claim.spec?.storageClassName;
    let sc: StorageClass | undefined;
    if (name === undefined || name === null) {
      try {
        sc = defaultStorageClass(await storage.list());
      } catch {
        return [invalid(`${at}.spec.storageClassName`, 'nil', 'can not list storage class')];
      }
      if (!sc) continue;
    } else {
      try {
        sc = await storage.get(name);
      } catch {
        return [invalid(`${at}.spec.storageClassName`, name, 'can not get sc')];
      }
    }
    if (sc.allowVolumeExpansion === false)
      return [
        forbidden(
          `${at}.spec.resources.requests.storage`,
          `storage class ${sc.metadata?.name ?? ''} does not support volume expansion`,
        ),
      ];
  }
  return [];
}
