import { resourceRef } from '@kruise/kube-compat/resource-ref';
import type { KubeClient, KubeObject } from '@kruise/runtime';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { StorageClassLookup } from './volume-claim-update.ts';

const StorageClasses = resourceRef('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false);

/**
 * StorageClasses read from the API when a resize is validated (rare: gate
 * StatefulSetAutoResizePVCGate, a changed claim size), so no cache is kept for them.
 */
export function apiStorageClasses(client: KubeClient): StorageClassLookup {
  return {
    get: (name) => client.get<StorageClass & KubeObject>(StorageClasses, undefined, name),
    list: async () => (await client.listAll<StorageClass & KubeObject>(StorageClasses)).items,
  };
}
