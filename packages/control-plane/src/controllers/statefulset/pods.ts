import { POD_REVISION_LABEL } from '@kruise/kube-compat/controller-revision';
import { claimsFor, podName, updateIdentity, updateStorage } from '@kruise/kube-compat/statefulset-identity';
import type { KubeObject } from '../../registry/types.ts';
import { setRef } from './revisions.ts';

/** The revision a pod was made from (its `controller-revision-hash` label). */
export const podRevision = (pod: KubeObject): string => pod.metadata?.labels?.[POD_REVISION_LABEL] ?? '';

/**
 * The set's pod of `ordinal` at `revision` (newStatefulSetPod, setPodRevision): the template's
 * labels, annotations, finalizers and spec, the set's controller reference, its identity (name,
 * pod-name and pod-index labels, hostname, subdomain), a volume per claim template and the
 * revision label. `set` is the set as of that revision.
 */
export function newStatefulSetPod(set: KubeObject, ordinal: number, revision: string): KubeObject {
  const t = structuredClone(set.spec?.template ?? {});
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(set, ordinal),
      labels: { ...(t.metadata?.labels ?? {}), [POD_REVISION_LABEL]: revision },
      ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
      ...(t.metadata?.finalizers?.length ? { finalizers: [...t.metadata.finalizers] } : {}),
      ownerReferences: [setRef(set)],
    },
    spec: t.spec ?? {},
  };
  updateIdentity(set, pod, true);
  pod.spec.hostname = pod.metadata?.name;
  if (set.spec?.serviceName) pod.spec.subdomain = set.spec.serviceName;
  updateStorage(set, pod);
  return pod;
}

/** The claims of the pod of `ordinal`, as they are created. */
export function claimsOf(set: KubeObject, ordinal: number): KubeObject[] {
  return [...claimsFor(set as never, ordinal).values()].map((c) => {
    const claim = c as KubeObject;
    return { ...claim, apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
  });
}
