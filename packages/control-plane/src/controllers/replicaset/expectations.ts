/** How long an unmet expectation holds before the controller acts again anyway (client-go: 5 minutes). */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

interface Expected {
  adds: number;
  deletes: Set<string>;
  at: number;
}

/**
 * client-go's UIDTrackingControllerExpectations for one controller: the pod creations and
 * deletions an owner has asked for and not yet seen, so that a sync never acts twice on the
 * same shortfall (never over-creates, never over-deletes).
 */
export class PodExpectations {
  private readonly owners = new Map<string, Expected>();

  /** Whether the owner has seen everything it asked for (or waited longer than the timeout). */
  satisfied(owner: string, now = Date.now()): boolean {
    const e = this.owners.get(owner);
    if (!e) return true;
    if ((e.adds <= 0 && e.deletes.size === 0) || now - e.at > EXPECTATIONS_TIMEOUT_MS) {
      this.owners.delete(owner);
      return true;
    }
    return false;
  }

  /** Records `count` creations about to be made. */
  expectCreations(owner: string, count: number): void {
    this.owners.set(owner, { adds: count, deletes: new Set(), at: Date.now() });
  }

  /** Records the pods (by namespace/name) about to be deleted. */
  expectDeletions(owner: string, pods: string[]): void {
    this.owners.set(owner, { adds: 0, deletes: new Set(pods), at: Date.now() });
  }

  /** A creation was seen, or one asked for will never happen. */
  creationObserved(owner: string): void {
    const e = this.owners.get(owner);
    if (e) e.adds--;
  }

  /** A pod's deletion was seen (or will not happen). */
  deletionObserved(owner: string, pod: string): void {
    this.owners.get(owner)?.deletes.delete(pod);
  }

  /** Forgets the owner (it was deleted). */
  delete(owner: string): void {
    this.owners.delete(owner);
  }
}
