import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { DEFAULT_TAG, parseImageReference } from '@kruise/kube-compat';
import type { Credential } from '../auth/keyring.ts';

const MANIFEST_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

const GO_ARCH: Record<string, string> = {
  x64: 'amd64',
  arm64: 'arm64',
  arm: 'arm',
  ppc64: 'ppc64le',
  s390x: 's390x',
};

interface Descriptor {
  digest?: string;
  platform?: { os?: string; architecture?: string };
}

interface ManifestDocument {
  manifests?: Descriptor[];
  config?: Descriptor;
  layers?: Descriptor[];
}

/** What resolving an image's blobs needs. */
export interface BlobLookupOptions {
  credential?: Credential;
  signal?: AbortSignal;
  /** The platform's architecture in Go's terms (default: this process's). */
  architecture?: string;
}

const isLoopback = (host: string) => {
  const name = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return name === 'localhost' || (isIP(name) === 4 && name.startsWith('127.')) || name === '::1';
};

/**
 * The blob digests one pull of `image` downloads — its index (if any), the manifest of this
 * platform, the config and every layer — read from the registry as containerd's resolver reads
 * them (HTTPS, plain HTTP only for loopback registries as containerd allows; bearer tokens or
 * basic auth on a 401 challenge, with the pull's credential). Used to attribute containerd's
 * in-progress ingests (named `<kind>-<digest>`) to the pull they belong to.
 */
export async function imageBlobs(image: string, options: BlobLookupOptions = {}): Promise<Set<string>> {
  const ref = parseImageReference(image);
  const host = ref.domain === 'docker.io' ? 'registry-1.docker.io' : ref.domain;
  const session = new RegistrySession(host, ref.path, options);
  const blobs = new Set<string>();
  let doc = await session.manifest(ref.digest ?? ref.tag ?? DEFAULT_TAG, blobs);
  if (doc.manifests) {
    const arch = options.architecture ?? GO_ARCH[process.arch] ?? process.arch;
    const chosen = doc.manifests.find((m) => m.platform?.os === 'linux' && m.platform.architecture === arch);
    if (!chosen?.digest) throw new Error(`no linux/${arch} manifest for ${image}`);
    doc = await session.manifest(chosen.digest, blobs);
  }
  for (const d of [doc.config, ...(doc.layers ?? [])]) if (d?.digest) blobs.add(d.digest);
  return blobs;
}

/** One answer of a registry. */
interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A GET with node:http(s), which the daemon has loaded anyway (its API client uses them); the
 * global fetch would load undici, ~14 MB of RSS against the daemon's 80 MB budget (ADR 0009).
 */
function get(url: URL, headers: Record<string, string>, signal?: AbortSignal): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { headers, signal, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url.host}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** Requests to one repository of one registry, answering auth challenges once. */
class RegistrySession {
  private readonly host: string;
  private readonly path: string;
  private readonly options: BlobLookupOptions;
  private scheme = 'https';
  private authorization: string | undefined;

  constructor(host: string, path: string, options: BlobLookupOptions) {
    this.host = host;
    this.path = path;
    this.options = options;
  }

  /** Fetches a manifest by tag or digest, adding its digest to `blobs`. */
  async manifest(reference: string, blobs: Set<string>): Promise<ManifestDocument> {
    const { body } = await this.get(`/v2/${this.path}/manifests/${reference}`);
    blobs.add(`sha256:${createHash('sha256').update(body).digest('hex')}`);
    return JSON.parse(body.toString('utf8')) as ManifestDocument;
  }

  private async get(path: string): Promise<Answer> {
    let res = await this.send(path);
    if (res.status === 401 && !this.authorization) {
      const challenge = res.headers['www-authenticate'];
      this.authorization = await this.answer(
        Array.isArray(challenge) ? (challenge[0] ?? '') : (challenge ?? ''),
      );
      res = await this.send(path);
    }
    if (res.status < 200 || res.status > 299)
      throw new Error(`GET ${path} on ${this.host}: HTTP ${res.status}`);
    return res;
  }

  private async send(path: string): Promise<Answer> {
    const headers = {
      accept: MANIFEST_TYPES,
      ...(this.authorization ? { authorization: this.authorization } : {}),
    };
    try {
      return await get(new URL(`${this.scheme}://${this.host}${path}`), headers, this.options.signal);
    } catch (err) {
      if (this.scheme !== 'https' || !isLoopback(this.host) || this.options.signal?.aborted) throw err;
      this.scheme = 'http';
      return get(new URL(`${this.scheme}://${this.host}${path}`), headers, this.options.signal);
    }
  }

  /** The Authorization header that answers a challenge (a bearer token fetched from its realm). */
  private async answer(challenge: string): Promise<string | undefined> {
    const c = this.options.credential;
    const basic = c ? `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}` : undefined;
    const scheme = challenge.slice(0, challenge.indexOf(' ')).toLowerCase();
    if (scheme === 'basic') return basic;
    if (scheme !== 'bearer') return undefined;
    const params = Object.fromEntries(
      [...challenge.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!.toLowerCase(), m[2]!]),
    );
    if (!params.realm) return undefined;
    const url = new URL(params.realm);
    if (params.service) url.searchParams.set('service', params.service);
    url.searchParams.set('scope', params.scope ?? `repository:${this.path}:pull`);
    const res = await get(url, basic ? { authorization: basic } : {}, this.options.signal);
    if (res.status < 200 || res.status > 299)
      throw new Error(`token request to ${url.host}: HTTP ${res.status}`);
    const json = JSON.parse(res.body.toString('utf8')) as { token?: string; access_token?: string };
    const token = json.token ?? json.access_token;
    return token ? `Bearer ${token}` : undefined;
  }
}
