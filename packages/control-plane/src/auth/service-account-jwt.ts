import { createHash, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';

/** The issuer (`iss`) of the control plane's ServiceAccount tokens, as kubeadm and kind configure it. */
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** A name and UID, as the `kubernetes.io` claim records a bound object. */
export interface ClaimRef {
  name: string;
  uid: string;
}

/** The private claim kube-apiserver puts in every ServiceAccount token. */
export interface KubernetesClaim {
  namespace: string;
  serviceaccount: ClaimRef;
  pod?: ClaimRef;
  secret?: ClaimRef;
  node?: ClaimRef;
  /** Past this time (seconds) the token is still accepted but counts as stale (extended tokens). */
  warnafter?: number;
}

/** The claims of a ServiceAccount token (RFC 7519 registered claims plus `kubernetes.io`). */
export interface ServiceAccountClaims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': KubernetesClaim;
}

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/**
 * Signs and checks ServiceAccount tokens: compact JWS with ES256 (P-256), a key made when the
 * control plane starts, its `kid` the SHA-256 of the public key's DER as kube-apiserver derives it.
 */
export class ServiceAccountTokenSigner {
  readonly keyId: string;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    this.publicKey = createPublicKey(privateKey);
    this.keyId = createHash('sha256')
      .update(publicKey.export({ format: 'der', type: 'spki' }))
      .digest('base64url');
  }

  /** The signed token for these claims. */
  sign(claims: ServiceAccountClaims): string {
    const header = base64url(JSON.stringify({ alg: 'ES256', kid: this.keyId }));
    const payload = base64url(JSON.stringify(claims));
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), {
      key: this.privateKey,
      dsaEncoding: 'ieee-p1363',
    });
    return `${header}.${payload}.${signature.toString('base64url')}`;
  }

  /** The claims of a token this signer signed, or undefined (not a JWT, another key, altered). */
  verify(token: string): ServiceAccountClaims | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [header, payload, signature] = parts as [string, string, string];
    try {
      const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
      if (head?.alg !== 'ES256' || head.kid !== this.keyId) return undefined;
      const ok = verify(
        'sha256',
        Buffer.from(`${header}.${payload}`),
        { key: this.publicKey, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature, 'base64url'),
      );
      if (!ok) return undefined;
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      return claims && typeof claims === 'object' ? (claims as ServiceAccountClaims) : undefined;
    } catch {
      return undefined;
    }
  }
}
