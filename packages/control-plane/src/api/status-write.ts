import type { KubeObject, ResourceType } from '../registry/types.ts';

/**
 * The object a write to `/status` stores, as kube-apiserver's status strategies build it: the
 * stored spec with the request's status. A custom resource keeps all its stored metadata; a
 * built-in takes the request's metadata (kubelet and kruise-daemon write labels and annotations
 * through pods/status), except the owner references of a pod and the labels of a Deployment.
 */
export function statusWrite(type: ResourceType, old: KubeObject, desired: KubeObject): KubeObject {
  const { status: _replaced, ...kept } = old;
  const next: KubeObject = structuredClone(kept);
  next.status = desired.status;
  if (next.status === undefined) delete next.status;
  if (type.crdName || !desired.metadata) return next;
  const meta = structuredClone(desired.metadata);
  if (type.group === '' && type.plural === 'pods') restore(meta, old.metadata, 'ownerReferences');
  if (type.group === 'apps' && type.plural === 'deployments') restore(meta, old.metadata, 'labels');
  next.metadata = meta;
  return next;
}

function restore(meta: Record<string, any>, old: Record<string, any> | undefined, field: string): void {
  if (old?.[field] === undefined) delete meta[field];
  else meta[field] = structuredClone(old[field]);
}
