import { methodNotAllowed } from '../../errors.ts';
import { apiVersionOf } from '../../registry/types.ts';
import { readObjectBody } from '../negotiation.ts';
import { postPodSubresource } from '../pod-actions.ts';
import { createToken } from '../token-request.ts';
import type { RequestScope } from './scope.ts';

/**
 * POST (kube-apiserver's CreateResource): a new object in the collection; POSTs to subresources
 * (a service account's `token`, a pod's `binding` and `eviction`) go to their own handlers.
 */
export async function createResource(s: RequestScope): Promise<void> {
  const { deps, type, info, options } = s;
  const body = await readObjectBody(s.req);
  if (info.subresource === 'token') return s.send(201, createToken(deps, type, info, body));
  if (info.name && !info.subresource) throw methodNotAllowed('POST');
  if (info.subresource) return s.send(201, await postPodSubresource(deps, type, info, body, options));
  const created = await deps.objects.create(type, info.namespace, body, options);
  return s.send(201, created);
}

/** POST of a review (SubjectAccessReview …): answered at once, nothing stored; other verbs are a 405. */
export async function createReview(s: RequestScope): Promise<void> {
  const { deps, type, user } = s;
  if (s.info.verb !== 'create') throw methodNotAllowed(s.req.method ?? '');
  const body = await readObjectBody(s.req);
  const answer = type.virtual!(
    { ...body, apiVersion: apiVersionOf(type), kind: type.kind, metadata: body?.metadata ?? {} },
    { user, authorize: (a) => deps.rbac.authorize(user, a) },
  );
  return s.send(201, answer);
}
