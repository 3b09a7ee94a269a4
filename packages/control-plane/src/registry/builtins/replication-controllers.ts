import { wideColumn } from '../columns.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { builtin } from './define.ts';
import { required } from './validation.ts';
import { defaultTemplate, REPLICA_COUNT_COLUMNS } from './workload-sets.ts';

const isEmpty = (labels: unknown) =>
  !labels || typeof labels !== 'object' || Object.keys(labels as object).length === 0;

/** SetDefaults_ReplicationController: one replica; selector and labels from the template's labels. */
function defaultReplicationController(o: KubeObject): void {
  o.spec ??= {};
  const templateLabels = o.spec.template?.metadata?.labels;
  if (!isEmpty(templateLabels)) {
    if (isEmpty(o.spec.selector)) o.spec.selector = { ...templateLabels };
    o.metadata ??= {};
    if (isEmpty(o.metadata.labels)) o.metadata.labels = { ...templateLabels };
  }
  o.spec.replicas ??= 1;
  defaultTemplate(o);
  o.status = { replicas: 0 };
}

const selectorText = (o: KubeObject) =>
  Object.entries(o.spec?.selector ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

/** core/v1 ReplicationController: stored and served (no controller runs it; no scale subresource). */
export const REPLICATION_CONTROLLER_RESOURCES: ResourceType[] = [
  builtin({
    group: '',
    version: 'v1',
    kind: 'ReplicationController',
    plural: 'replicationcontrollers',
    namespaced: true,
    shortNames: ['rc'],
    categories: ['all'],
    statusSubresource: true,
    tracksGeneration: true,
    columns: [...REPLICA_COUNT_COLUMNS, wideColumn('Selector', selectorText)],
    defaults: defaultReplicationController,
    validate: (o) => (isEmpty(o.spec?.selector) ? [required('spec.selector')] : []),
  }),
];
