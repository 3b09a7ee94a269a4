import type { ResourceType } from '../types.ts';
import { builtin } from './define.ts';

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

/** `authorization.k8s.io/v1` self-subject reviews, answered from RBAC and never stored. */
export const ACCESS_REVIEW_RESOURCES: ResourceType[] = [
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
