import { randomBytes, randomUUID } from 'node:crypto';
import type { KubeObject } from '../registry/types.ts';
import type { Store } from '../store/store.ts';
import type { UserInfo } from './attributes.ts';
import { type ClaimRef, SERVICE_ACCOUNT_ISSUER, ServiceAccountTokenSigner } from './service-account-jwt.ts';

interface IssuedToken {
  user: UserInfo;
  expiresAt: number;
}

/** The audiences kube-apiserver accepts (`--api-audiences`, by default its issuer). */
export const API_AUDIENCES: readonly string[] = [SERVICE_ACCOUNT_ISSUER];

/** kube-apiserver's leeway on `exp`/`nbf`, and on a bound object's deletion, in ms. */
const LEEWAY_MS = 60_000;

/** Reads the objects a ServiceAccount token is bound to, as stored now. */
export type ObjectLookup = (
  resource: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes',
  namespace: string,
  name: string,
) => KubeObject | undefined;

/** An ObjectLookup reading the store. */
export function storedObjects(store: Pick<Store, 'get'>): ObjectLookup {
  return (resource, namespace, name) =>
    store.get(`/${resource}`, resource === 'nodes' ? '' : namespace, name)?.obj;
}

/** What a ServiceAccount token is issued for (TokenRequest, after its checks). */
export interface ServiceAccountTokenGrant {
  namespace: string;
  serviceAccount: ClaimRef;
  audiences: string[];
  /** Seconds until `exp`. */
  expirationSeconds: number;
  /** Seconds until `warnafter` (an extended token), if any. */
  warnAfterSeconds?: number;
  pod?: ClaimRef;
  secret?: ClaimRef;
  node?: ClaimRef;
}

/** Whether a bound object is still there: same UID, and not deleted longer ago than the leeway. */
function stillBound(obj: KubeObject | undefined, uid: string, now: number): boolean {
  if (!obj || obj.metadata?.uid !== uid) return false;
  const deleted = obj.metadata?.deletionTimestamp;
  return !deleted || Date.parse(deleted) >= now - LEEWAY_MS;
}

/**
 * Bearer tokens: the admin token, static tokens, and ServiceAccount tokens issued through
 * TokenRequest — JWTs signed by the control plane, checked as kube-apiserver checks them: the
 * signature, issuer, expiry (one minute's leeway), an API audience, and that the ServiceAccount and
 * any object the token is bound to (pod, secret, node) still exist with the UIDs it names.
 */
export class TokenAuthenticator {
  private readonly tokens = new Map<string, IssuedToken>();
  private readonly signer = new ServiceAccountTokenSigner();
  private readonly now: () => number;

  readonly adminToken: string;

  constructor(adminToken: string = randomBytes(24).toString('hex'), now: () => number = Date.now) {
    this.adminToken = adminToken;
    this.now = now;
    this.tokens.set(adminToken, {
      user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      expiresAt: Number.POSITIVE_INFINITY,
    });
  }

  /** The user a token stands for, or undefined when it is unknown, expired or no longer bound. */
  authenticate(token: string | undefined, lookup: ObjectLookup): UserInfo | undefined {
    if (!token) return undefined;
    const issued = this.tokens.get(token);
    if (issued) {
      if (issued.expiresAt >= this.now()) return issued.user;
      this.tokens.delete(token);
      return undefined;
    }
    return this.serviceAccountUser(token, lookup);
  }

  private serviceAccountUser(token: string, lookup: ObjectLookup): UserInfo | undefined {
    const claims = this.signer.verify(token);
    const k = claims?.['kubernetes.io'];
    if (!claims || !k?.serviceaccount || claims.iss !== SERVICE_ACCOUNT_ISSUER) return undefined;
    const now = this.now();
    if (claims.exp * 1000 + LEEWAY_MS < now || claims.nbf * 1000 - LEEWAY_MS > now) return undefined;
    if (!(claims.aud ?? []).some((a) => API_AUDIENCES.includes(a))) return undefined;
    const ns = k.namespace;
    const sa = k.serviceaccount;
    if (!stillBound(lookup('serviceaccounts', ns, sa.name), sa.uid, now)) return undefined;
    if (k.pod && !stillBound(lookup('pods', ns, k.pod.name), k.pod.uid, now)) return undefined;
    if (k.secret && !stillBound(lookup('secrets', ns, k.secret.name), k.secret.uid, now)) return undefined;
    if (k.node && !k.pod && !stillBound(lookup('nodes', '', k.node.name), k.node.uid, now)) return undefined;
    const extra: Record<string, string[]> = {};
    if (k.pod) {
      extra['authentication.kubernetes.io/pod-name'] = [k.pod.name];
      extra['authentication.kubernetes.io/pod-uid'] = [k.pod.uid];
    }
    if (k.node) {
      extra['authentication.kubernetes.io/node-name'] = [k.node.name];
      extra['authentication.kubernetes.io/node-uid'] = [k.node.uid];
    }
    extra['authentication.kubernetes.io/credential-id'] = [`JTI=${claims.jti}`];
    return {
      username: `system:serviceaccount:${ns}:${sa.name}`,
      uid: sa.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
      extra,
    };
  }

  /**
   * Adds a token for a user with groups, as a line of kube-apiserver's `--token-auth-file` does
   * (tests give each replica of a program a user of its own).
   */
  addStaticToken(user: UserInfo): string {
    const token = `static.${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, {
      user: { ...user, groups: [...user.groups, 'system:authenticated'] },
      expiresAt: Number.POSITIVE_INFINITY,
    });
    return token;
  }

  /** Signs a ServiceAccount token (`sub` = `system:serviceaccount:<ns>:<name>`); returns it and its `exp`. */
  issueServiceAccountToken(grant: ServiceAccountTokenGrant): { token: string; expiresAt: Date } {
    const now = Math.floor(this.now() / 1000);
    const exp = now + grant.expirationSeconds;
    const token = this.signer.sign({
      aud: grant.audiences,
      exp,
      iat: now,
      iss: SERVICE_ACCOUNT_ISSUER,
      jti: randomUUID(),
      'kubernetes.io': {
        namespace: grant.namespace,
        ...(grant.node ? { node: grant.node } : {}),
        ...(grant.pod ? { pod: grant.pod } : {}),
        ...(grant.secret ? { secret: grant.secret } : {}),
        serviceaccount: grant.serviceAccount,
        ...(grant.warnAfterSeconds ? { warnafter: now + grant.warnAfterSeconds } : {}),
      },
      nbf: now,
      sub: `system:serviceaccount:${grant.namespace}:${grant.serviceAccount.name}`,
    });
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /** Seconds since the epoch on this authenticator's clock. */
  nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }
}
