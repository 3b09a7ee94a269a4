import { AGE_COLUMN, column } from '../columns.ts';
import type { ResourceType } from '../types.ts';
import { builtin } from './define.ts';
import { required } from './validation.ts';
import { defaultTemplate, WORKLOAD_SET_RESOURCES } from './workload-sets.ts';

const n = (v: unknown) => (typeof v === 'number' ? v : 0);

/** The `apps/v1` workloads served. */
export const APPS_RESOURCES: ResourceType[] = [
  builtin({
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    statusSubresource: true,
    subresources: ['scale'],
    tracksGeneration: true,
    columns: [
      column('Ready', (o) => `${n(o.status?.readyReplicas)}/${o.spec?.replicas ?? 1}`),
      column('Up-to-date', (o) => n(o.status?.updatedReplicas), 'integer'),
      column('Available', (o) => n(o.status?.availableReplicas), 'integer'),
      AGE_COLUMN,
    ],
    defaults: (o) => {
      o.spec ??= {};
      o.spec.replicas ??= 1;
      o.spec.revisionHistoryLimit ??= 10;
      o.spec.progressDeadlineSeconds ??= 600;
      o.spec.strategy ??= {};
      o.spec.strategy.type ||= 'RollingUpdate';
      if (o.spec.strategy.type === 'RollingUpdate') {
        o.spec.strategy.rollingUpdate ??= {};
        o.spec.strategy.rollingUpdate.maxUnavailable ??= '25%';
        o.spec.strategy.rollingUpdate.maxSurge ??= '25%';
      }
      defaultTemplate(o);
    },
    validate: (o) => (o.spec?.selector ? [] : [required('spec.selector')]),
  }),
  builtin({
    group: 'apps',
    version: 'v1',
    kind: 'DaemonSet',
    plural: 'daemonsets',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    statusSubresource: true,
    tracksGeneration: true,
    columns: [
      column('Desired', (o) => n(o.status?.desiredNumberScheduled), 'integer'),
      column('Current', (o) => n(o.status?.currentNumberScheduled), 'integer'),
      column('Ready', (o) => n(o.status?.numberReady), 'integer'),
      column('Up-to-date', (o) => n(o.status?.updatedNumberScheduled), 'integer'),
      column('Available', (o) => n(o.status?.numberAvailable), 'integer'),
      column(
        'Node Selector',
        (o) =>
          Object.entries(o.spec?.template?.spec?.nodeSelector ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(',') || '<none>',
      ),
      AGE_COLUMN,
    ],
    defaults: (o) => {
      o.spec ??= {};
      o.spec.revisionHistoryLimit ??= 10;
      o.spec.updateStrategy ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
    },
    validate: (o) => (o.spec?.selector ? [] : [required('spec.selector')]),
  }),
  ...WORKLOAD_SET_RESOURCES,
];
