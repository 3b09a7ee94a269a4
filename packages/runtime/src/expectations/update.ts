import { type ExpectationCheck, SATISFIED } from './check.ts';
import type { VersionedObject } from './resource-version.ts';
import { type ExpectationsOptions, TimeoutReporter } from './timeout.ts';

const keyOf = (obj: VersionedObject) =>
  obj.metadata?.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : `${obj.metadata?.name}`;

/**
 * Objects an owner updated to a revision that its cache does not show at that revision yet (kruise's
 * `UpdateExpectations`, e.g. pods a workload updated in place): until each shows the revision, the
 * owner does not count them as old and update them again. Expecting a different revision starts over;
 * an expectation unmet past the timeout is dropped, logged, counted.
 */
export class UpdateExpectations<T extends VersionedObject = VersionedObject> {
  private readonly owners = new Map<string, { revision: string; objects: Set<string>; since: number }>();
  private readonly timeout: TimeoutReporter;
  private readonly revisionOf: (obj: T) => string | undefined;

  /** `revisionOf` reads an object's revision (a pod's `controller-revision-hash` label, say). */
  constructor(options: ExpectationsOptions, revisionOf: (obj: T) => string | undefined) {
    this.timeout = new TimeoutReporter(options);
    this.revisionOf = revisionOf;
  }

  /** Records that the owner updated `obj` to `revision`. */
  expectUpdated(owner: string, revision: string, obj: T): void {
    let e = this.owners.get(owner);
    if (!e || e.revision !== revision) {
      e = { revision, objects: new Set(), since: 0 };
      this.owners.set(owner, e);
    }
    e.objects.add(keyOf(obj));
    e.since = this.timeout.now();
  }

  /** The cache showed `obj`: done when it carries the revision expected. */
  observeUpdated(owner: string, revision: string, obj: T): void {
    const e = this.owners.get(owner);
    if (!e) return;
    if (e.revision === revision && this.revisionOf(obj) === revision) e.objects.delete(keyOf(obj));
    if (e.revision !== revision || e.objects.size === 0) this.owners.delete(owner);
  }

  /** Whether every object the owner updated to `revision` shows it; past the timeout they are dropped. */
  check(owner: string, revision: string): ExpectationCheck {
    const e = this.owners.get(owner);
    if (!e || e.revision !== revision || e.objects.size === 0) return SATISFIED;
    const describe = () => ({ revision, updating: [...e.objects].sort() });
    if (this.timeout.expired(e.since)) {
      this.owners.delete(owner);
      this.timeout.dropped('update', owner, describe());
      return SATISFIED;
    }
    return {
      satisfied: false,
      retryAfterMs: this.timeout.left(e.since),
      get pending() {
        return describe();
      },
    };
  }

  /** Forgets the owner (it was deleted). */
  delete(owner: string): void {
    this.owners.delete(owner);
  }
}
