import { AGE_COLUMN, column } from '../columns.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { builtin } from './define.ts';
import { required } from './validation.ts';

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

/** `rbac.authorization.k8s.io/v1`: Roles, ClusterRoles and their bindings. */
export const RBAC_RESOURCES: ResourceType[] = [
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
];
