import type { KubeObject } from '../registry/types.ts';
import type { Store } from '../store/store.ts';
import type { Attributes, UserInfo } from './attributes.ts';

/** Paths every authenticated user may GET (kube-apiserver's system:discovery and public-info roles). */
const DISCOVERY_PATHS = ['/api', '/apis', '/version', '/healthz', '/readyz', '/livez', '/openapi'];

function has(list: unknown, value: string): boolean {
  return Array.isArray(list) && (list.includes('*') || list.includes(value));
}

function resourceMatches(resources: unknown, resource: string, subresource: string): boolean {
  if (!Array.isArray(resources)) return false;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of resources) {
    if (r === '*' || r === combined) return true;
    if (subresource && (r === `${resource}/*` || r === `*/${subresource}`)) return true;
  }
  return false;
}

/** Whether one PolicyRule grants the request. */
export function ruleAllows(rule: any, a: Attributes): boolean {
  if (!has(rule?.verbs, a.verb)) return false;
  if (a.path !== undefined) {
    return (rule.nonResourceURLs ?? []).some(
      (u: string) => u === '*' || u === a.path || (u.endsWith('*') && a.path!.startsWith(u.slice(0, -1))),
    );
  }
  if (!has(rule.apiGroups, a.group)) return false;
  if (!resourceMatches(rule.resources, a.resource, a.subresource)) return false;
  const names: string[] = rule.resourceNames ?? [];
  return names.length === 0 || (a.name !== '' && names.includes(a.name));
}

function subjectMatches(subject: any, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject?.kind) {
    case 'User':
      return subject.name === user.username;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount':
      return (
        user.username === `system:serviceaccount:${subject.namespace || bindingNamespace}:${subject.name}`
      );
    default:
      return false;
  }
}

/** Role-based access control evaluated from the stored Roles, ClusterRoles and bindings. */
export class RbacAuthorizer {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  private rulesOf(kind: string, name: string, namespace: string): any[] {
    const role: KubeObject | undefined =
      kind === 'ClusterRole'
        ? this.store.get('rbac.authorization.k8s.io/clusterroles', '', name)?.obj
        : this.store.get('rbac.authorization.k8s.io/roles', namespace, name)?.obj;
    return role?.rules ?? [];
  }

  /** Decides a request; `reason` names the binding that allowed it. */
  authorize(user: UserInfo, a: Attributes): { allowed: boolean; reason: string } {
    if (user.groups.includes('system:masters')) return { allowed: true, reason: '' };
    if (
      a.path !== undefined &&
      a.verb === 'get' &&
      DISCOVERY_PATHS.some((p) => a.path === p || a.path!.startsWith(`${p}/`))
    ) {
      return { allowed: true, reason: 'system:discovery' };
    }
    if (a.group === 'authorization.k8s.io' && a.verb === 'create' && a.resource.startsWith('selfsubject')) {
      return { allowed: true, reason: 'system:basic-user' };
    }
    for (const { obj } of this.store.list('rbac.authorization.k8s.io/clusterrolebindings')) {
      if (!(obj.subjects ?? []).some((s: any) => subjectMatches(s, user, ''))) continue;
      if (obj.roleRef?.kind !== 'ClusterRole') continue;
      if (this.rulesOf('ClusterRole', obj.roleRef.name, '').some((r) => ruleAllows(r, a))) {
        return { allowed: true, reason: `RBAC: allowed by ClusterRoleBinding "${obj.metadata?.name}"` };
      }
    }
    if (a.namespace && a.path === undefined) {
      for (const { obj } of this.store.list('rbac.authorization.k8s.io/rolebindings', a.namespace)) {
        if (!(obj.subjects ?? []).some((s: any) => subjectMatches(s, user, a.namespace))) continue;
        if (this.rulesOf(obj.roleRef?.kind, obj.roleRef?.name, a.namespace).some((r) => ruleAllows(r, a))) {
          return {
            allowed: true,
            reason: `RBAC: allowed by RoleBinding "${obj.metadata?.name}/${a.namespace}"`,
          };
        }
      }
    }
    return { allowed: false, reason: '' };
  }
}

/** kube-apiserver's Forbidden message for a denied request. */
export function forbiddenMessage(user: UserInfo, a: Attributes): string {
  if (a.path !== undefined) return `forbidden: User "${user.username}" cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const subject = `${a.resource}${a.group ? `.${a.group}` : ''}${a.name ? ` "${a.name}"` : ''}`;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `${subject} is forbidden: User "${user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}`;
}
