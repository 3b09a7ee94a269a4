import { wasRemoved } from '../api/objects.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';

/**
 * What a DELETE answers, as kube-apiserver's store does: the object while it is only marked for
 * deletion (finalizers, grace period) or when its kind returns deleted objects; otherwise a
 * `Status` of kind Success naming it (`details.kind` is the resource, as kube-apiserver writes it).
 */
export function deleteResult(type: ResourceType, obj: KubeObject): KubeObject {
  if (type.returnsDeletedObject || !wasRemoved(obj)) return obj;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: {
      name: obj.metadata?.name,
      ...(type.group ? { group: type.group } : {}),
      kind: type.plural,
      uid: obj.metadata?.uid,
    },
  };
}
