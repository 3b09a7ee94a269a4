import { AGE_COLUMN, age, column } from '../columns.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { builtin } from './define.ts';
import { required } from './validation.ts';

const n = (v: unknown) => (typeof v === 'number' ? v : 0);

function validateRules(obj: KubeObject) {
  return (obj.rules ?? []).flatMap((rule: any, i: number) =>
    !Array.isArray(rule?.verbs) || rule.verbs.length === 0 ? [required(`rules[${i}].verbs`)] : [],
  );
}

function validateRoleRef(obj: KubeObject) {
  const causes = [];
  if (!obj.roleRef?.kind) causes.push(required('roleRef.kind'));
  if (!obj.roleRef?.name) causes.push(required('roleRef.name'));
  return causes;
}

/** A review resource: only `create`, answered and never stored. */
function review(group: string, kind: string, plural: string, virtual: ResourceType['virtual']): ResourceType {
  return builtin({
    group,
    version: 'v1',
    kind,
    plural,
    namespaced: false,
    verbs: ['create'],
    virtual,
    columns: [],
  });
}

/** Every built-in resource outside the core group. */
export const OTHER_RESOURCES: ResourceType[] = [
  builtin({
    group: 'events.k8s.io',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    columns: [
      column('Last Seen', (o, now) =>
        age(o.deprecatedLastTimestamp ?? o.eventTime ?? o.metadata?.creationTimestamp, now),
      ),
      column('Type', (o) => o.type ?? ''),
      column('Reason', (o) => o.reason ?? ''),
      column('Object', (o) => `${(o.regarding?.kind ?? '').toLowerCase()}/${o.regarding?.name ?? ''}`),
      column('Note', (o) => o.note ?? ''),
    ],
  }),
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
      o.spec.strategy ??= {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
      };
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
  builtin({
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    plural: 'leases',
    namespaced: true,
    columns: [column('Holder', (o) => o.spec?.holderIdentity ?? ''), AGE_COLUMN],
  }),
  builtin({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    statusSubresource: true,
    tracksGeneration: true,
    columns: [column('Created At', (o) => o.metadata?.creationTimestamp ?? '', 'date')],
  }),
  builtin({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'MutatingWebhookConfiguration',
    plural: 'mutatingwebhookconfigurations',
    namespaced: false,
    categories: ['api-extensions'],
    tracksGeneration: true,
    columns: [column('Webhooks', (o) => (o.webhooks ?? []).length, 'integer'), AGE_COLUMN],
  }),
  builtin({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingWebhookConfiguration',
    plural: 'validatingwebhookconfigurations',
    namespaced: false,
    categories: ['api-extensions'],
    tracksGeneration: true,
    columns: [column('Webhooks', (o) => (o.webhooks ?? []).length, 'integer'), AGE_COLUMN],
  }),
  builtin({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'Role',
    plural: 'roles',
    namespaced: true,
    columns: [column('Created At', (o) => o.metadata?.creationTimestamp ?? '', 'date')],
    validate: validateRules,
  }),
  builtin({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRole',
    plural: 'clusterroles',
    namespaced: false,
    columns: [column('Created At', (o) => o.metadata?.creationTimestamp ?? '', 'date')],
    validate: validateRules,
  }),
  builtin({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'RoleBinding',
    plural: 'rolebindings',
    namespaced: true,
    columns: [column('Role', (o) => `${o.roleRef?.kind ?? ''}/${o.roleRef?.name ?? ''}`), AGE_COLUMN],
    validate: validateRoleRef,
  }),
  builtin({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    namespaced: false,
    columns: [column('Role', (o) => `${o.roleRef?.kind ?? ''}/${o.roleRef?.name ?? ''}`), AGE_COLUMN],
    validate: validateRoleRef,
  }),
  review('authorization.k8s.io', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', (obj, ctx) => {
    const ra = obj.spec?.resourceAttributes;
    const nra = obj.spec?.nonResourceAttributes;
    const decision = ra
      ? ctx.authorize({
          verb: ra.verb ?? '',
          group: ra.group ?? '',
          resource: ra.resource ?? '',
          subresource: ra.subresource ?? '',
          namespace: ra.namespace ?? '',
          name: ra.name ?? '',
        })
      : ctx.authorize({
          verb: nra?.verb ?? '',
          group: '',
          resource: '',
          subresource: '',
          namespace: '',
          name: '',
          path: nra?.path ?? '',
        });
    return {
      ...obj,
      status: { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) },
    };
  }),
  review('authorization.k8s.io', 'SelfSubjectRulesReview', 'selfsubjectrulesreviews', (obj) => ({
    ...obj,
    status: { resourceRules: [], nonResourceRules: [], incomplete: true },
  })),
];
