import { randomBytes } from 'node:crypto';
import type { UserInfo } from './attributes.ts';

interface IssuedToken {
  user: UserInfo;
  expiresAt: number;
  /** The ServiceAccount UID the token is bound to: deleting the account revokes it. */
  serviceAccountUid?: string;
}

/** Bearer tokens: the admin token and ServiceAccount tokens issued through TokenRequest. */
export class TokenAuthenticator {
  private readonly tokens = new Map<string, IssuedToken>();

  readonly adminToken: string;

  constructor(adminToken: string = randomBytes(24).toString('hex')) {
    this.adminToken = adminToken;
    this.tokens.set(adminToken, {
      user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      expiresAt: Number.POSITIVE_INFINITY,
    });
  }

  /** The user a token stands for, or undefined when it is unknown or expired. */
  authenticate(
    token: string | undefined,
    isServiceAccountLive: (ns: string, name: string, uid: string) => boolean,
  ): UserInfo | undefined {
    if (!token) return undefined;
    const issued = this.tokens.get(token);
    if (!issued) return undefined;
    if (issued.expiresAt < Date.now()) {
      this.tokens.delete(token);
      return undefined;
    }
    if (issued.serviceAccountUid) {
      const [, , ns, name] = issued.user.username.split(':');
      if (!isServiceAccountLive(ns!, name!, issued.serviceAccountUid)) return undefined;
    }
    return issued.user;
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

  /** Issues a token for a ServiceAccount (`system:serviceaccount:<ns>:<name>`). */
  issueServiceAccountToken(
    namespace: string,
    name: string,
    uid: string,
    seconds: number,
  ): { token: string; expiresAt: Date } {
    const token = `sa.${randomBytes(32).toString('base64url')}`;
    const expiresAt = Date.now() + seconds * 1000;
    this.tokens.set(token, {
      user: {
        username: `system:serviceaccount:${namespace}:${name}`,
        uid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
      },
      expiresAt,
      serviceAccountUid: uid,
    });
    return { token, expiresAt: new Date(expiresAt) };
  }
}
