import { type ExpectationCheck, SATISFIED } from './check.ts';
import { type ExpectationsOptions, TimeoutReporter } from './timeout.ts';

interface OwnerScale {
  /** Creations expected by count (client-go's `add`), for objects whose name the controller does not know. */
  creations: number;
  deletions: number;
  /** Creations and deletions expected by object name (upstream kruise's scale expectations). */
  creating: Set<string>;
  deleting: Set<string>;
  /** When an expectation was last raised; the timeout counts from here. */
  since: number;
}

const empty = (e: OwnerScale) =>
  e.creations <= 0 && e.deletions <= 0 && e.creating.size === 0 && e.deleting.size === 0;

/** What is pending, for the check's answer and the log line. */
const describe = (e: OwnerScale) => ({
  creations: e.creations + e.creating.size,
  deletions: e.deletions + e.deleting.size,
  ...(e.creating.size ? { creating: [...e.creating].sort() } : {}),
  ...(e.deleting.size ? { deleting: [...e.deleting].sort() } : {}),
});

/**
 * Creations and deletions a controller made for an owner (`namespace/name`) that its cache has not
 * shown yet, so it does not create or delete twice from a stale cache. Expected by count (client-go's
 * `ControllerExpectations`) or by object name (kruise's `ScaleExpectations`); observed from the
 * informer's add and delete events. An owner with anything pending for longer than the timeout has
 * its expectations dropped, with a log line and `kruise_manager_expectations_timeout_total`.
 */
export class ScaleExpectations {
  private readonly owners = new Map<string, OwnerScale>();
  private readonly timeout: TimeoutReporter;

  constructor(options: ExpectationsOptions) {
    this.timeout = new TimeoutReporter(options);
  }

  private entry(owner: string): OwnerScale {
    let e = this.owners.get(owner);
    if (!e) {
      e = { creations: 0, deletions: 0, creating: new Set(), deleting: new Set(), since: 0 };
      this.owners.set(owner, e);
    }
    e.since = this.timeout.now();
    return e;
  }

  /** Expects `count` more creations for the owner (names unknown, e.g. `generateName`). */
  expectCreations(owner: string, count: number): void {
    this.entry(owner).creations += count;
  }

  /** Expects `count` more deletions for the owner. */
  expectDeletions(owner: string, count: number): void {
    this.entry(owner).deletions += count;
  }

  /** Expects the object `name` to appear for the owner. */
  expectCreation(owner: string, name: string): void {
    this.entry(owner).creating.add(name);
  }

  /** Expects the object `name` to disappear for the owner. */
  expectDeletion(owner: string, name: string): void {
    this.entry(owner).deleting.add(name);
  }

  /** The cache showed a new object of the owner: its name if expected by name, else one counted creation. */
  creationObserved(owner: string, name?: string): void {
    const e = this.owners.get(owner);
    if (!e) return;
    if (name !== undefined && e.creating.delete(name)) this.settle(owner, e);
    else if (e.creations > 0) {
      e.creations--;
      this.settle(owner, e);
    }
  }

  /** The cache showed an object of the owner gone. */
  deletionObserved(owner: string, name?: string): void {
    const e = this.owners.get(owner);
    if (!e) return;
    if (name !== undefined && e.deleting.delete(name)) this.settle(owner, e);
    else if (e.deletions > 0) {
      e.deletions--;
      this.settle(owner, e);
    }
  }

  private settle(owner: string, e: OwnerScale): void {
    if (empty(e)) this.owners.delete(owner);
  }

  /** The owner's pending expectations, or undefined when none are left or they timed out (dropped, logged, counted). */
  private live(owner: string): OwnerScale | undefined {
    const e = this.owners.get(owner);
    if (!e) return undefined;
    if (empty(e)) {
      this.owners.delete(owner);
      return undefined;
    }
    if (!this.timeout.expired(e.since)) return e;
    this.owners.delete(owner);
    this.timeout.dropped('scale', owner, describe(e));
    return undefined;
  }

  /**
   * Whether the owner may act on its cache now; an expectation past the timeout is dropped (logged,
   * counted). What is pending is described only when read (an event handler that checks on every
   * pod event must not sort a thousand awaited names each time).
   */
  check(owner: string): ExpectationCheck {
    const e = this.live(owner);
    if (!e) return SATISFIED;
    return {
      satisfied: false,
      retryAfterMs: this.timeout.left(e.since),
      get pending() {
        return describe(e);
      },
    };
  }

  /** Names of objects still awaited to appear for the owner (a copy; empty once they timed out). */
  awaitedCreations(owner: string): Set<string> {
    return new Set(this.live(owner)?.creating);
  }

  /** `check(owner).satisfied`. */
  satisfied(owner: string): boolean {
    return this.live(owner) === undefined;
  }

  /** Forgets the owner (it was deleted). */
  delete(owner: string): void {
    this.owners.delete(owner);
  }

  /** Owners with something pending. */
  get size(): number {
    return this.owners.size;
  }
}
