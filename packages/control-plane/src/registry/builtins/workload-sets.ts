import { selectorMatchesToString } from '../../admission/matching.ts';
import { AGE_COLUMN, column, wideColumn } from '../columns.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { validateControllerRevision, validateReplicaSet, validateStatefulSet } from './apps-validation.ts';
import { builtin } from './define.ts';
import { defaultPodSpec } from './pod-defaults.ts';

const n = (v: unknown) => (typeof v === 'number' ? v : 0);

const containers = (o: KubeObject): any[] => o.spec?.template?.spec?.containers ?? [];

/** The wide CONTAINERS and IMAGES columns of workloads. */
export const TEMPLATE_COLUMNS = [
  wideColumn('Containers', (o) =>
    containers(o)
      .map((c) => c.name)
      .join(','),
  ),
  wideColumn('Images', (o) =>
    containers(o)
      .map((c) => c.image)
      .join(','),
  ),
];

/** DESIRED, CURRENT, READY, AGE and the template's columns: what kubectl prints of a ReplicaSet or a ReplicationController. */
export const REPLICA_COUNT_COLUMNS = [
  column('Desired', (o) => o.spec?.replicas ?? 1, 'integer'),
  column('Current', (o) => n(o.status?.replicas), 'integer'),
  column('Ready', (o) => n(o.status?.readyReplicas), 'integer'),
  AGE_COLUMN,
  ...TEMPLATE_COLUMNS,
];

/** The defaults of a workload's pod template (the pod spec's). */
export function defaultTemplate(o: KubeObject): void {
  const template = o.spec?.template;
  if (template && typeof template === 'object') {
    template.spec ??= {};
    defaultPodSpec(template.spec);
  }
}

/** SetDefaults_StatefulSet (StatefulSetAutoDeletePVC on, MaxUnavailableStatefulSet off, as in 1.32). */
function defaultStatefulSet(o: KubeObject): void {
  o.spec ??= {};
  const spec = o.spec;
  spec.podManagementPolicy ||= 'OrderedReady';
  spec.updateStrategy ??= {};
  if (!spec.updateStrategy.type) {
    spec.updateStrategy.type = 'RollingUpdate';
    spec.updateStrategy.rollingUpdate ??= {};
  }
  if (spec.updateStrategy.type === 'RollingUpdate' && spec.updateStrategy.rollingUpdate)
    spec.updateStrategy.rollingUpdate.partition ??= 0;
  spec.persistentVolumeClaimRetentionPolicy ??= {};
  spec.persistentVolumeClaimRetentionPolicy.whenDeleted ||= 'Retain';
  spec.persistentVolumeClaimRetentionPolicy.whenScaled ||= 'Retain';
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  defaultTemplate(o);
  for (const claim of spec.volumeClaimTemplates ?? []) {
    if (!claim || typeof claim !== 'object') continue;
    claim.apiVersion ??= 'v1';
    claim.kind ??= 'PersistentVolumeClaim';
    claim.spec ??= {};
    claim.spec.volumeMode ??= 'Filesystem';
    claim.status ??= {};
    claim.status.phase ??= 'Pending';
  }
  o.status = { replicas: 0, availableReplicas: 0 };
}

/** `statefulset.apps/web`: the CONTROLLER column of a ControllerRevision. */
function controllerOf(o: KubeObject): string {
  const ref = (o.metadata?.ownerReferences ?? []).find((r: any) => r?.controller);
  if (!ref) return '<none>';
  const group = String(ref.apiVersion ?? '').includes('/') ? String(ref.apiVersion).split('/')[0] : '';
  return `${String(ref.kind).toLowerCase()}${group ? `.${group}` : ''}/${ref.name}`;
}

/** apps/v1 ControllerRevision, StatefulSet and ReplicaSet (Deployment and DaemonSet are in apps.ts). */
export const WORKLOAD_SET_RESOURCES: ResourceType[] = [
  builtin({
    group: 'apps',
    version: 'v1',
    kind: 'ControllerRevision',
    plural: 'controllerrevisions',
    namespaced: true,
    columns: [
      column('Controller', controllerOf),
      column('Revision', (o) => n(o.revision), 'integer'),
      AGE_COLUMN,
    ],
    validate: validateControllerRevision,
  }),
  builtin({
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    plural: 'statefulsets',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    statusSubresource: true,
    subresources: ['scale'],
    tracksGeneration: true,
    columns: [
      column('Ready', (o) => `${n(o.status?.readyReplicas)}/${o.spec?.replicas ?? 1}`),
      AGE_COLUMN,
      ...TEMPLATE_COLUMNS,
    ],
    defaults: defaultStatefulSet,
    validate: validateStatefulSet,
  }),
  builtin({
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    plural: 'replicasets',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    statusSubresource: true,
    subresources: ['scale'],
    tracksGeneration: true,
    columns: [
      ...REPLICA_COUNT_COLUMNS,
      wideColumn('Selector', (o) => (o.spec?.selector ? selectorMatchesToString(o.spec.selector) : '')),
    ],
    defaults: (o) => {
      o.spec ??= {};
      o.spec.replicas ??= 1;
      defaultTemplate(o);
      o.status = { replicas: 0 };
    },
    validate: validateReplicaSet,
    selectableFields: (o) => ({ 'status.replicas': String(n(o.status?.replicas)) }),
  }),
];
