import { resourceRef } from '@kruise/kube-compat/resource-ref';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { DeletionProtectionLookups } from './validating.ts';

/**
 * Deletion protection's lookups read from the API when a protected namespace or CRD is deleted
 * (rare), as upstream lists them: a namespace's pods and PVCs, a CRD's resources in every namespace.
 */
export function apiDeletionLookups(client: KubeClient): DeletionProtectionLookups {
  return {
    pods: async (namespace) => (await client.listAll<Pod & KubeObject>(Resources.Pod, { namespace })).items,
    persistentVolumeClaims: async (namespace) =>
      (
        await client.listAll<PersistentVolumeClaim & KubeObject>(Resources.PersistentVolumeClaim, {
          namespace,
        })
      ).items,
    customResources: async (group, version, plural) =>
      (await client.listAll(resourceRef(group, version, plural, plural, false))).items,
  };
}
