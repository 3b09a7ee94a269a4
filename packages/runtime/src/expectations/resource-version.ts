import { type ExpectationCheck, SATISFIED } from './check.ts';
import { type ExpectationsOptions, TimeoutReporter } from './timeout.ts';

/** What resourceVersion expectations read of an object. */
export interface VersionedObject {
  metadata?: { uid?: string; resourceVersion?: string; namespace?: string; name?: string };
}

/**
 * Whether `next` is at least as new as `expected` (upstream's `isResourceVersionNewer`): nothing
 * expected is always met; resourceVersions compare as unsigned integers, as the API server issues them.
 */
export function resourceVersionReached(expected: string | undefined, next: string | undefined): boolean {
  if (!expected) return true;
  let want: bigint;
  try {
    want = BigInt(expected);
  } catch {
    return true;
  }
  try {
    return BigInt(next ?? '') >= want;
  } catch {
    return false;
  }
}

/**
 * "Do not act until the cache has seen my write": after updating an object, a controller records
 * the resourceVersion the API server returned; until its informer delivers that version (or a
 * newer one) the cached copy is stale and the controller waits. Keyed by UID (kruise's
 * `ResourceVersionExpectation`); an expectation unmet past the timeout is dropped, logged, counted.
 */
export class ResourceVersionExpectations {
  private readonly versions = new Map<string, { resourceVersion: string; since: number; key: string }>();
  private readonly timeout: TimeoutReporter;

  constructor(options: ExpectationsOptions) {
    this.timeout = new TimeoutReporter(options);
  }

  /** Records the version a write returned (keeps the newest when called twice). */
  expect(obj: VersionedObject): void {
    const uid = obj.metadata?.uid;
    const rv = obj.metadata?.resourceVersion;
    if (!uid || !rv) return;
    const old = this.versions.get(uid);
    if (old && !resourceVersionReached(old.resourceVersion, rv)) return;
    const key = obj.metadata?.namespace
      ? `${obj.metadata.namespace}/${obj.metadata.name}`
      : `${obj.metadata?.name}`;
    this.versions.set(uid, { resourceVersion: rv, since: this.timeout.now(), key });
  }

  /** The informer delivered this version: an expectation it meets is done. */
  observe(obj: VersionedObject): void {
    const uid = obj.metadata?.uid;
    if (!uid) return;
    const e = this.versions.get(uid);
    if (e && resourceVersionReached(e.resourceVersion, obj.metadata?.resourceVersion))
      this.versions.delete(uid);
  }

  /** Whether the cached `obj` is as new as the last write; past the timeout the expectation is dropped. */
  check(obj: VersionedObject): ExpectationCheck {
    const uid = obj.metadata?.uid;
    const e = uid ? this.versions.get(uid) : undefined;
    if (!uid || !e) return SATISFIED;
    if (resourceVersionReached(e.resourceVersion, obj.metadata?.resourceVersion)) {
      this.versions.delete(uid);
      return SATISFIED;
    }
    const pending = { resourceversion: e.resourceVersion, cached: obj.metadata?.resourceVersion };
    if (this.timeout.expired(e.since)) {
      this.versions.delete(uid);
      this.timeout.dropped('resourceVersion', e.key, pending);
      return SATISFIED;
    }
    return { satisfied: false, retryAfterMs: this.timeout.left(e.since), pending };
  }

  /** `check(obj).satisfied`. */
  isSatisfied(obj: VersionedObject): boolean {
    return this.check(obj).satisfied;
  }

  /** Forgets the object (it was deleted). */
  delete(obj: VersionedObject): void {
    if (obj.metadata?.uid) this.versions.delete(obj.metadata.uid);
  }

  /** Objects awaited. */
  get size(): number {
    return this.versions.size;
  }
}
