import { V1BETA1_ONLY_SPEC_ANNOTATION } from '@kruise/api';
import type { KindConversion } from '@kruise/runtime';
import { specStash } from './stash.ts';

/** Spec fields Advanced StatefulSet has at v1beta1 and not at v1alpha1 (the rest is the same at both). */
export const STATEFULSET_V1BETA1_ONLY_SPEC = [
  'reserveOrdinals',
  'lifecycle',
  'scaleStrategy',
  'persistentVolumeClaimRetentionPolicy',
  'ordinals',
  'volumeClaimUpdateStrategy',
] as const;

/** Status fields only v1beta1 has: dropped at v1alpha1 (a write there keeps the stored status). */
export const STATEFULSET_V1BETA1_ONLY_STATUS = [
  'updatedReadyReplicas',
  'updatedAvailableReplicas',
  'volumeClaims',
] as const;

const stash = specStash(V1BETA1_ONLY_SPEC_ANNOTATION, STATEFULSET_V1BETA1_ONLY_SPEC);

/**
 * Advanced StatefulSet: v1beta1 (storage, the hub) ⇄ v1alpha1. The fields both versions have are
 * kept as they are; v1beta1's own spec fields travel in an annotation while the object is read at
 * v1alpha1, where upstream drops them (so a v1alpha1 write there loses nothing).
 */
export const statefulSetConversion: KindConversion = {
  group: 'apps.kruise.io',
  kind: 'StatefulSet',
  hub: 'v1beta1',
  spokes: {
    v1alpha1: {
      toHub: (obj) => stash.restore(obj),
      fromHub: (obj) => {
        for (const field of STATEFULSET_V1BETA1_ONLY_STATUS) delete obj.status?.[field];
        return stash.stash(obj);
      },
    },
  },
};
