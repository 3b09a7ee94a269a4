/**
 * Docker image references, parsed and normalised the way the Docker distribution
 * library does (`ParseNormalizedNamed`), so that `nginx`, `library/nginx`,
 * `docker.io/library/nginx:latest` all mean the same image.
 */

/** The registry that names without a domain refer to. */
export const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const OFFICIAL_REPO_PREFIX = 'library/';
/** The tag assumed when a reference has neither tag nor digest. */
export const DEFAULT_TAG = 'latest';
const NAME_TOTAL_LENGTH_MAX = 255;

const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const IPV6 = '\\[(?:[a-fA-F0-9:]+)\\]';
const DOMAIN_NAME = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|${IPV6})`;
const DOMAIN = `${DOMAIN_NAME}(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';

const domainRe = new RegExp(`^${DOMAIN}$`);
const pathComponentRe = new RegExp(`^${PATH_COMPONENT}$`);
const tagRe = new RegExp(`^${TAG}$`);
const digestRe = new RegExp(`^${DIGEST}$`);
const anchoredHexRe = /^[a-f0-9]{64}$/;

/** Why a reference was rejected; the message matches the distribution library's. */
export class InvalidImageReferenceError extends Error {
  override name = 'InvalidImageReferenceError';
}

/** A parsed, normalised image reference. */
export interface ImageReference {
  /** Registry host (and port), `docker.io` when none was given. */
  domain: string;
  /** Repository path inside the registry, `library/` added for official Docker Hub images. */
  path: string;
  /** Fully qualified name: `domain/path`. */
  name: string;
  /** The short name people write: `nginx`, `foo/bar`, `registry.k8s.io/pause`. */
  familiarName: string;
  /** The tag as written, if any. */
  tag?: string;
  /** The digest as written, if any (`sha256:<hex>`). */
  digest?: string;
}

function invalid(message: string): never {
  throw new InvalidImageReferenceError(message);
}

function validateDigest(digest: string): void {
  if (!digestRe.test(digest)) invalid('invalid reference format');
  const [algorithm, hex] = digest.split(':') as [string, string];
  const lengths: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
  const expected = lengths[algorithm];
  if (expected === undefined) invalid('unsupported digest algorithm');
  if (hex.length !== expected) invalid('invalid checksum digest length');
  if (!/^[a-f0-9]+$/.test(hex)) invalid('invalid checksum digest format');
}

function splitDomain(name: string): { domain: string; path: string } {
  const slash = name.indexOf('/');
  let domain = DEFAULT_DOMAIN;
  let path = name;
  if (slash !== -1) {
    const first = name.slice(0, slash);
    if (
      first.includes('.') ||
      first.includes(':') ||
      first === 'localhost' ||
      first.toLowerCase() !== first
    ) {
      domain = first;
      path = name.slice(slash + 1);
    }
  }
  if (domain === LEGACY_DEFAULT_DOMAIN) domain = DEFAULT_DOMAIN;
  if (domain === DEFAULT_DOMAIN && !path.includes('/')) path = OFFICIAL_REPO_PREFIX + path;
  return { domain, path };
}

/**
 * Parses an image reference and normalises its name.
 * @throws InvalidImageReferenceError with the distribution library's message.
 */
export function parseImageReference(input: string): ImageReference {
  if (typeof input !== 'string' || input.length === 0)
    invalid('repository name must have at least one component');
  if (anchoredHexRe.test(input)) {
    invalid(`invalid repository name (${input}), cannot specify 64-byte hexadecimal strings`);
  }
  let rest = input;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    validateDigest(digest);
  }
  let tag: string | undefined;
  const lastColon = rest.lastIndexOf(':');
  if (lastColon !== -1 && !rest.slice(lastColon + 1).includes('/')) {
    tag = rest.slice(lastColon + 1);
    rest = rest.slice(0, lastColon);
    if (!tagRe.test(tag)) invalid('invalid reference format');
  }
  if (rest.length === 0) invalid('repository name must have at least one component');
  const { domain, path } = splitDomain(rest);
  if (!domainRe.test(domain)) invalid('invalid reference format');
  const components = path.split('/');
  for (const component of components) {
    if (!pathComponentRe.test(component)) {
      if (component.toLowerCase() !== component && pathComponentRe.test(component.toLowerCase())) {
        invalid(`invalid reference format: repository name (${path}) must be lowercase`);
      }
      invalid('invalid reference format');
    }
  }
  const name = `${domain}/${path}`;
  if (name.length > NAME_TOTAL_LENGTH_MAX) {
    invalid(`repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`);
  }
  let familiarName = name;
  if (domain === DEFAULT_DOMAIN) {
    familiarName = path.startsWith(OFFICIAL_REPO_PREFIX) ? path.slice(OFFICIAL_REPO_PREFIX.length) : path;
  }
  return { domain, path, name, familiarName, ...(tag ? { tag } : {}), ...(digest ? { digest } : {}) };
}

/** Whether `text` is a digest (`sha256:<hex>`, the algorithm and hex of any length the grammar allows). */
export function isDigest(text: string): boolean {
  return digestRe.test(text);
}

/** The fully qualified reference with a tag (`docker.io/library/nginx:latest`), as runtimes list it. */
export function fullyQualifiedImage(image: string): string {
  const ref = parseImageReference(image);
  if (ref.digest) return `${ref.name}${ref.tag ? `:${ref.tag}` : ''}@${ref.digest}`;
  return `${ref.name}:${ref.tag ?? DEFAULT_TAG}`;
}
