import type { FeatureGates } from '@kruise/api';
import { type AdmissionHandler, allowed, denied } from '@kruise/runtime';
import type { Namespace } from 'kubernetes-types/core/v1.js';
import {
  alwaysOnlyDeletionDenial,
  type CrdLike,
  type CustomResourceLister,
  crdDeletionDenial,
  type NamespaceContents,
  namespaceDeletionDenial,
  workloadDeletionDenial,
} from '../../workload/deletion-protection/index.ts';

/** What the namespace and CRD checks read from the API at DELETE time. */
export interface DeletionProtectionLookups extends NamespaceContents {
  customResources: CustomResourceLister;
}

/** Lookups for generating configurations, where no request is ever served. */
export const NO_DELETION_LOOKUPS: DeletionProtectionLookups = {
  pods: () => Promise.reject(new Error('no API access')),
  persistentVolumeClaims: () => Promise.reject(new Error('no API access')),
  customResources: () => Promise.reject(new Error('no API access')),
};

type Decide = (old: any) => string | undefined | Promise<string | undefined>;

const isObject = (v: unknown): v is Record<string, any> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A DELETE-only handler as upstream's: other operations, subresources and requests without an old
 * object pass; an old object that is not an object is a 400; a denial is a 403 with upstream's message.
 */
function onDelete(decide: Decide): AdmissionHandler {
  return async (request) => {
    if (request.operation !== 'DELETE' || request.subResource) return allowed();
    if (request.oldObject === undefined || request.oldObject === null) return allowed();
    if (
      !isObject(request.oldObject) ||
      (request.oldObject.metadata !== undefined && !isObject(request.oldObject.metadata))
    )
      return denied(400, 'json: cannot unmarshal the old object into Go value of type metav1.Object');
    const denial = await decide(request.oldObject);
    return denial ? denied(403, denial) : allowed();
  };
}

/**
 * `vbuiltindeployment` / `vbuiltinreplicaset` / `vbuiltinstatefulset` (apps/v1): `Always` denies,
 * `Cascading` denies while replicas > 0.
 */
export function validateBuiltinWorkloadDeletion(gates: FeatureGates): AdmissionHandler {
  return onDelete((old) => workloadDeletionDenial(gates, old));
}

/** `vservice` and `vingress`: only `Always` protects. */
export function validateAlwaysOnlyDeletion(gates: FeatureGates): AdmissionHandler {
  return onDelete((old) => alwaysOnlyDeletionDenial(gates, old));
}

/** `vnamespace`: `Cascading` denies while the namespace has active pods or Bound PVCs. */
export function validateNamespaceDeletion(gates: FeatureGates, lookups: NamespaceContents): AdmissionHandler {
  return onDelete((old) => namespaceDeletionDenial(gates, old as Namespace, lookups));
}

/** `vcustomresourcedefinition` (v1 and v1beta1): `Cascading` denies while CRs exist (its own gate). */
export function validateCrdDeletion(gates: FeatureGates, list: CustomResourceLister): AdmissionHandler {
  return onDelete((old) => crdDeletionDenial(gates, old as CrdLike, list));
}
