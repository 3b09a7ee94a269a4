import { GROUP, VERSION } from '@kruise/api/group';

/** Where a resource is served. */
export interface ResourceRef {
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
  kind: string;
}

const ref = (
  group: string,
  version: string,
  plural: string,
  kind: string,
  namespaced: boolean,
): ResourceRef => ({
  group,
  version,
  plural,
  kind,
  namespaced,
});

/** The resources this project reads and writes. */
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
  NodeImage: ref(GROUP, VERSION, 'nodeimages', 'NodeImage', false),
  ImagePullJob: ref(GROUP, VERSION, 'imagepulljobs', 'ImagePullJob', true),
  ImageListPullJob: ref(GROUP, VERSION, 'imagelistpulljobs', 'ImageListPullJob', true),
  ContainerRecreateRequest: ref(
    GROUP,
    VERSION,
    'containerrecreaterequests',
    'ContainerRecreateRequest',
    true,
  ),
  CloneSet: ref(GROUP, VERSION, 'clonesets', 'CloneSet', true),
  ControllerRevision: ref('apps', 'v1', 'controllerrevisions', 'ControllerRevision', true),
  PersistentVolumeClaim: ref('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true),
  PersistentVolume: ref('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
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
