import { nowRFC3339 } from '../api/context.ts';
import type { ClaimRef } from '../auth/service-account-jwt.ts';
import { API_AUDIENCES } from '../auth/tokens.ts';
import { badRequest, conflict, invalid, notFound, pathNotFound } from '../errors.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';
import type { HandlerDeps } from './deps.ts';
import type { RequestInfo } from './request-info.ts';

/** The expirationSeconds the ServiceAccount admission asks for: such pod-bound tokens are extended. */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3607;
/** How long an extended token really lives (kube-apiserver's `--service-account-extend-token-expiration`). */
const EXTENDED_EXPIRATION_SECONDS = 365 * 24 * 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

const refOf = (obj: KubeObject): ClaimRef => ({ name: obj.metadata?.name, uid: obj.metadata?.uid });

/** kube-apiserver's ValidateTokenRequest: the expiration's bounds (3600 when not given). */
function validateExpiration(seconds: unknown): number {
  const value = seconds === undefined || seconds === null ? 3600 : Number(seconds);
  const why =
    value < MIN_EXPIRATION_SECONDS
      ? 'may not specify a duration less than 10 minutes'
      : value > MAX_EXPIRATION_SECONDS
        ? 'may not specify a duration larger than 2^32 seconds'
        : undefined;
  if (why)
    throw invalid('TokenRequest', 'authentication.k8s.io', '', [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        message: `Invalid value: ${value}: ${why}`,
      },
    ]);
  return value;
}

/**
 * POST to a service account's `token` subresource: a TokenRequest answered with a signed token
 * for the account, nothing stored. `spec.boundObjectRef` (a Pod or Secret of the namespace, its
 * `uid` checked when given) binds the token to that object: it stops authenticating once the object
 * is gone. `spec.audiences` defaults to the API server's. A pod-bound token asked for 3607 s for
 * the API server is extended to a year (`warnafter` in its claim), as kube-apiserver extends them;
 * `status.expirationTimestamp` still says when to refresh it.
 */
export function createToken(
  deps: Pick<HandlerDeps, 'store' | 'tokens'>,
  type: ResourceType,
  info: RequestInfo,
  body: KubeObject,
): KubeObject {
  if (type.plural !== 'serviceaccounts') throw pathNotFound();
  const expirationSeconds = validateExpiration(body?.spec?.expirationSeconds);
  const sa = deps.store.get('/serviceaccounts', info.namespace, info.name)?.obj;
  if (!sa) throw notFound('serviceaccounts', '', info.name);
  const ref = body?.spec?.boundObjectRef ?? undefined;
  let pod: KubeObject | undefined;
  let secret: KubeObject | undefined;
  let node: KubeObject | undefined;
  if (ref) {
    const apiVersion = String(ref.apiVersion ?? '');
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
    let bound: KubeObject;
    if (group === '' && ref.kind === 'Pod') {
      pod = deps.store.get('/pods', info.namespace, ref.name)?.obj;
      if (!pod) throw notFound('pods', '', ref.name);
      if (pod.spec?.serviceAccountName !== info.name)
        throw badRequest(
          `cannot bind token for serviceaccount "${info.name}" to pod running with different serviceaccount name.`,
        );
      if (pod.spec?.nodeName) node = deps.store.get('/nodes', '', pod.spec.nodeName)?.obj;
      bound = pod;
    } else if (group === '' && ref.kind === 'Secret') {
      secret = deps.store.get('/secrets', info.namespace, ref.name)?.obj;
      if (!secret) throw notFound('secrets', '', ref.name);
      bound = secret;
    } else {
      const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion;
      throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind ?? ''}`);
    }
    if (ref.uid && ref.uid !== bound.metadata?.uid)
      throw conflict(
        ref.kind,
        '',
        ref.name,
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
  }
  const requested: string[] = Array.isArray(body?.spec?.audiences) ? body.spec.audiences : [];
  const audiences = requested.length ? requested : [...API_AUDIENCES];
  const extended =
    pod !== undefined &&
    expirationSeconds === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS &&
    audiences.every((a) => API_AUDIENCES.includes(a));
  const { token } = deps.tokens.issueServiceAccountToken({
    namespace: info.namespace,
    serviceAccount: refOf(sa),
    audiences,
    expirationSeconds: extended ? EXTENDED_EXPIRATION_SECONDS : expirationSeconds,
    ...(extended ? { warnAfterSeconds: expirationSeconds } : {}),
    ...(pod ? { pod: refOf(pod) } : {}),
    ...(secret ? { secret: refOf(secret) } : {}),
    ...(node ? { node: refOf(node) } : {}),
  });
  const refreshAt = new Date((deps.tokens.nowSeconds() + expirationSeconds) * 1000);
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name: info.name, namespace: info.namespace, creationTimestamp: nowRFC3339() },
    spec: {
      audiences,
      expirationSeconds,
      boundObjectRef: ref ? { ...ref, apiVersion: ref.apiVersion ?? 'v1' } : null,
    },
    status: { token, expirationTimestamp: refreshAt.toISOString().replace(/\.\d{3}Z$/, 'Z') },
  };
}
