import { type KubeClient, objectPath, Resources } from '@kruise/runtime';

/** What a TokenRequest asks for (authentication.k8s.io/v1 TokenRequestSpec). */
export interface TokenRequestSpec {
  /** Unset: the API server's own audiences. */
  audiences?: string[];
  expirationSeconds: number;
  boundObjectRef: { kind: 'Pod'; apiVersion: 'v1'; name: string; uid: string };
}

/** A TokenRequest as the API server answers it. */
export interface TokenRequest {
  spec: { expirationSeconds?: number };
  status: { token: string; expirationTimestamp: string };
}

/** Asks the API server for a token of a ServiceAccount. */
export type RequestToken = (
  namespace: string,
  serviceAccount: string,
  spec: TokenRequestSpec,
) => Promise<TokenRequest>;

/** kubelet's rule: a token is refreshed once it is this old, whatever its lifetime. */
const MAX_TTL_MS = 24 * 3600 * 1000;
/** kubelet's jitter: refreshes are spread by up to 10 s. */
const MAX_JITTER_MS = 10_000;

/**
 * kubelet's requiresRefresh: a token needs a new one once 80% of its lifetime has passed, or once
 * it is 24 h old, each brought forward by `jitterMs`.
 */
export function requiresRefresh(tr: TokenRequest, nowMs: number, jitterMs = 0): boolean {
  const seconds = tr.spec.expirationSeconds;
  if (!seconds) return false;
  const exp = Date.parse(tr.status.expirationTimestamp);
  const issued = exp - seconds * 1000;
  if (nowMs > issued + MAX_TTL_MS - jitterMs) return true;
  return nowMs > exp - (seconds * 1000 * 20) / 100 - jitterMs;
}

/** The POST to `serviceaccounts/<name>/token` a node makes with its own identity. */
export function tokenRequester(client: KubeClient): RequestToken {
  return (namespace, serviceAccount, spec) =>
    client.request('POST', objectPath(Resources.ServiceAccount, namespace, serviceAccount, 'token'), {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec },
    });
}

/**
 * kubelet's token manager: bound ServiceAccount tokens for projected volumes, cached per
 * (account, audiences, lifetime, bound pod) and asked for again when requiresRefresh says so; when
 * a refresh fails, the cached token is used while it has not expired. A pod's tokens are
 * forgotten when it goes.
 */
export class ServiceAccountTokens {
  private readonly request: RequestToken;
  private readonly now: () => number;
  private readonly cache = new Map<string, { tr: TokenRequest; podUid: string }>();

  /** `now`: kubelet's clock (tests move it to see a refresh). */
  constructor(request: RequestToken, now: () => number = Date.now) {
    this.request = request;
    this.now = now;
  }

  /** The token for `serviceAccount` in `namespace` bound to the pod in `spec`. */
  async token(namespace: string, serviceAccount: string, spec: TokenRequestSpec): Promise<string> {
    const key = JSON.stringify([
      serviceAccount,
      namespace,
      spec.audiences ?? null,
      spec.expirationSeconds,
      spec.boundObjectRef,
    ]);
    const cached = this.cache.get(key);
    const now = this.now();
    if (cached && !requiresRefresh(cached.tr, now, Math.random() * MAX_JITTER_MS))
      return cached.tr.status.token;
    try {
      const tr = await this.request(namespace, serviceAccount, spec);
      this.cache.set(key, { tr, podUid: spec.boundObjectRef.uid });
      return tr.status.token;
    } catch (err) {
      if (cached && Date.parse(cached.tr.status.expirationTimestamp) > now) return cached.tr.status.token;
      throw err;
    }
  }

  /** Forgets the tokens bound to a pod that is gone. */
  forgetPod(uid: string): void {
    for (const [key, v] of this.cache) if (v.podUid === uid) this.cache.delete(key);
  }
}
