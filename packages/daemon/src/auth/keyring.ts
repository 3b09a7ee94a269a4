import { parseImageReference } from '@kruise/kube-compat';

/** One registry credential. */
export interface Credential {
  username: string;
  password: string;
  /** The key it was listed under, for logs (never the secret itself). */
  source: string;
}

interface Entry {
  host: string;
  port: string;
  path: string;
  credential: Credential;
}

/** Why a pull secret could not be read (the message names the secret, never its content). */
export class InvalidPullSecretError extends Error {}

function parseKey(key: string): { host: string; port: string; path: string } {
  let k = key.trim();
  k = k.replace(/^https?:\/\//, '');
  const slash = k.indexOf('/');
  const hostPort = slash === -1 ? k : k.slice(0, slash);
  const path = slash === -1 ? '' : k.slice(slash + 1).replace(/\/+$/, '');
  const colon = hostPort.lastIndexOf(':');
  const host = colon === -1 ? hostPort : hostPort.slice(0, colon);
  const port = colon === -1 ? '' : hostPort.slice(colon + 1);
  const hub = host === 'index.docker.io' || host === 'registry-1.docker.io' || host === 'docker.io';
  // Docker Hub keys are written `https://index.docker.io/v1/`: the API version is not a repository path.
  return { host: hub ? 'docker.io' : host, port, path: hub && /^v[12]$/.test(path) ? '' : path };
}

function hostMatches(pattern: string, host: string): boolean {
  const p = pattern.split('.');
  const h = host.split('.');
  if (p.length !== h.length) return false;
  return p.every((part, i) => {
    if (!part.includes('*')) return part === h[i];
    const re = new RegExp(`^${part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
    return re.test(h[i]!);
  });
}

/**
 * Registry credentials from `.dockerconfigjson` / `.dockercfg` secrets, matched as kubelet's
 * keyring matches them: host (with `*` wildcards per label), port, and path prefix, `https://`
 * prefixes ignored; every matching credential is returned, most specific first.
 */
export class DockerKeyring {
  private readonly entries: Entry[] = [];

  /** Adds the credentials of one secret; throws InvalidPullSecretError on malformed data. */
  addSecret(secret: {
    metadata?: { namespace?: string; name?: string };
    type?: string;
    data?: Record<string, string>;
  }): void {
    const name = `${secret.metadata?.namespace}/${secret.metadata?.name}`;
    const data = secret.data ?? {};
    const raw = data['.dockerconfigjson'] ?? data['.dockercfg'];
    if (raw === undefined)
      throw new InvalidPullSecretError(`secret ${name} has neither .dockerconfigjson nor .dockercfg`);
    let decoded: any;
    try {
      decoded = JSON.parse(Buffer.from(raw, 'base64').toString('utf8'));
    } catch {
      throw new InvalidPullSecretError(`secret ${name} does not hold valid docker config JSON`);
    }
    const auths = data['.dockerconfigjson'] !== undefined ? decoded?.auths : decoded;
    if (!auths || typeof auths !== 'object')
      throw new InvalidPullSecretError(`secret ${name} has no registry entries`);
    for (const [key, value] of Object.entries(auths as Record<string, any>)) {
      let username = value?.username ?? '';
      let password = value?.password ?? '';
      if (value?.auth) {
        const pair = Buffer.from(String(value.auth), 'base64').toString('utf8');
        const colon = pair.indexOf(':');
        if (colon === -1)
          throw new InvalidPullSecretError(
            `secret ${name}: the auth of ${key} is not base64 of user:password`,
          );
        username = pair.slice(0, colon);
        password = pair.slice(colon + 1);
      }
      this.entries.push({ ...parseKey(key), credential: { username, password, source: `${name}:${key}` } });
    }
  }

  /** Credentials that apply to an image, most specific (longest path) first. */
  lookup(image: string): Credential[] {
    const ref = parseImageReference(image);
    const { host, port } = parseKey(ref.domain);
    const repo = ref.path;
    return this.entries
      .filter(
        (e) =>
          hostMatches(e.host, host) &&
          (e.port === '' || e.port === port) &&
          (e.path === '' || repo === e.path || repo.startsWith(`${e.path}/`)),
      )
      .sort((a, b) => b.path.length - a.path.length)
      .map((e) => e.credential);
  }

  /** Number of credentials. */
  get size(): number {
    return this.entries.length;
  }
}
