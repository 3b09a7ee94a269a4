import { type ResourceRef, resourceRef as ref } from '@kruise/kube-compat/resource-ref';

/** The kit's resource address; kinds outside this table are the programs' own (handed in as references). */
export type { ResourceRef };

/** The built-in Kubernetes resources the kit and its programs read and write. */
export const Resources = {
  Namespace: ref('', 'v1', 'namespaces', 'Namespace', false),
  Node: ref('', 'v1', 'nodes', 'Node', false),
  Pod: ref('', 'v1', 'pods', 'Pod', true),
  Secret: ref('', 'v1', 'secrets', 'Secret', true),
  ConfigMap: ref('', 'v1', 'configmaps', 'ConfigMap', true),
  Service: ref('', 'v1', 'services', 'Service', true),
  Endpoints: ref('', 'v1', 'endpoints', 'Endpoints', true),
  ServiceAccount: ref('', 'v1', 'serviceaccounts', 'ServiceAccount', true),
  Event: ref('', 'v1', 'events', 'Event', true),
  Lease: ref('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
  MutatingWebhookConfiguration: ref(
    'admissionregistration.k8s.io',
    'v1',
    'mutatingwebhookconfigurations',
    'MutatingWebhookConfiguration',
    false,
  ),
  ValidatingWebhookConfiguration: ref(
    'admissionregistration.k8s.io',
    'v1',
    'validatingwebhookconfigurations',
    'ValidatingWebhookConfiguration',
    false,
  ),
  CustomResourceDefinition: ref(
    'apiextensions.k8s.io',
    'v1',
    'customresourcedefinitions',
    'CustomResourceDefinition',
    false,
  ),
  ControllerRevision: ref('apps', 'v1', 'controllerrevisions', 'ControllerRevision', true),
  Deployment: ref('apps', 'v1', 'deployments', 'Deployment', true),
  ReplicaSet: ref('apps', 'v1', 'replicasets', 'ReplicaSet', true),
  StatefulSet: ref('apps', 'v1', 'statefulsets', 'StatefulSet', true),
  ReplicationController: ref('', 'v1', 'replicationcontrollers', 'ReplicationController', true),
  Job: ref('batch', 'v1', 'jobs', 'Job', true),
  PersistentVolumeClaim: ref('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true),
  PersistentVolume: ref('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
  StorageClass: ref('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false),
} as const;

/** `apiVersion` of a resource. */
export const apiVersionOf = (r: ResourceRef) => (r.group ? `${r.group}/${r.version}` : r.version);

/** The collection path of a resource, in a namespace or across all of them. */
export function collectionPath(r: ResourceRef, namespace?: string): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return r.namespaced && namespace
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.plural}`
    : `${base}/${r.plural}`;
}

/** The path of one object (and optionally a subresource). */
export function objectPath(
  r: ResourceRef,
  namespace: string | undefined,
  name: string,
  subresource?: string,
): string {
  return `${collectionPath(r, r.namespaced ? namespace : undefined)}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
}

/** A `group/plural` key naming a resource. */
export const resourceId = (r: ResourceRef) => `${r.group}/${r.plural}`;
