import { nowRFC3339 } from '../api/context.ts';
import { notFound, pathNotFound } from '../errors.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';
import type { HandlerDeps } from './deps.ts';
import type { RequestInfo } from './request-info.ts';

/**
 * POST to a service account's `token` subresource: a TokenRequest answered with a signed token
 * for the account (at least 10 minutes, 1 hour by default), nothing stored.
 */
export function createToken(
  deps: Pick<HandlerDeps, 'store' | 'tokens'>,
  type: ResourceType,
  info: RequestInfo,
  body: KubeObject,
): KubeObject {
  if (type.plural !== 'serviceaccounts') throw pathNotFound();
  const sa = deps.store.get('/serviceaccounts', info.namespace, info.name);
  if (!sa) throw notFound('serviceaccounts', '', info.name);
  const seconds = Math.max(600, Number(body?.spec?.expirationSeconds ?? 3600));
  const { token, expiresAt } = deps.tokens.issueServiceAccountToken(
    info.namespace,
    info.name,
    sa.obj.metadata?.uid,
    seconds,
  );
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name: info.name, namespace: info.namespace, creationTimestamp: nowRFC3339() },
    spec: {
      audiences: body?.spec?.audiences ?? ['https://kubernetes.default.svc'],
      expirationSeconds: seconds,
      boundObjectRef: body?.spec?.boundObjectRef ?? null,
    },
    status: { token, expirationTimestamp: expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') },
  };
}
