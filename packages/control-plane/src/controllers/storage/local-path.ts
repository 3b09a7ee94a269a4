import type { KubeObject } from '../../registry/types.ts';

/** The provisioner name of the default StorageClass. */
export const LOCAL_PATH_PROVISIONER = 'kruise.io/local-path';
/** The default StorageClass's name. */
export const LOCAL_PATH_CLASS = 'local-path';
/** Where the directories live on the node unless the class says otherwise (parameter `nodePath`). */
export const DEFAULT_NODE_PATH = '/var/lib/kruise/local-path';
/** The node the scheduler chose for a WaitForFirstConsumer claim. */
export const SELECTED_NODE = 'volume.kubernetes.io/selected-node';

/** The default local-path StorageClass (WaitForFirstConsumer, reclaim Delete). */
export function localPathClass(nodePath: string): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: LOCAL_PATH_CLASS,
      annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
    },
    provisioner: LOCAL_PATH_PROVISIONER,
    parameters: { nodePath },
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  };
}

/**
 * The PersistentVolume provisioned for a claim on a node (ADR 0032): a `hostPath` volume
 * (type DirectoryOrCreate) at `<nodePath>/pvc-<claim uid>_<namespace>_<claim name>`, pinned to
 * the node by required node affinity on kubernetes.io/hostname. The node creates the directory
 * when a pod that uses the claim starts there.
 */
export function localPathVolume(claim: KubeObject, sc: KubeObject, node: string): KubeObject {
  const uid = claim.metadata?.uid;
  const nodePath = String(sc.parameters?.nodePath ?? DEFAULT_NODE_PATH).replace(/\/+$/, '');
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: `pvc-${uid}`,
      annotations: {
        'pv.kubernetes.io/provisioned-by': sc.provisioner,
        'local.path.provisioner/selected-node': node,
      },
    },
    spec: {
      capacity: { storage: claim.spec?.resources?.requests?.storage },
      accessModes: claim.spec?.accessModes,
      persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
      storageClassName: sc.metadata?.name,
      volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: claim.metadata?.namespace,
        name: claim.metadata?.name,
        uid,
      },
      hostPath: {
        path: `${nodePath}/pvc-${uid}_${claim.metadata?.namespace}_${claim.metadata?.name}`,
        type: 'DirectoryOrCreate',
      },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] },
          ],
        },
      },
    },
  };
}
