/**
 * Remembers creates and deletes a controller made but has not seen in its cache yet, so it does
 * not act twice on a stale cache (controller-runtime's expectations; entries expire after `ttlMs`).
 */
export class Expectations {
  private readonly pending = new Map<string, { adds: Set<string>; deletes: Set<string>; at: number }>();
  private readonly ttlMs: number;

  constructor(ttlMs = 5 * 60_000) {
    this.ttlMs = ttlMs;
  }

  private entry(controllerKey: string) {
    let e = this.pending.get(controllerKey);
    if (!e) {
      e = { adds: new Set(), deletes: new Set(), at: Date.now() };
      this.pending.set(controllerKey, e);
    }
    return e;
  }

  /** Records a create of `objectKey` by the controller of `controllerKey`. */
  expectCreation(controllerKey: string, objectKey: string): void {
    const e = this.entry(controllerKey);
    e.adds.add(objectKey);
    e.at = Date.now();
  }

  /** Records a delete. */
  expectDeletion(controllerKey: string, objectKey: string): void {
    const e = this.entry(controllerKey);
    e.deletes.add(objectKey);
    e.at = Date.now();
  }

  /** The cache saw the object: the create is no longer pending. */
  observeCreation(controllerKey: string, objectKey: string): void {
    this.pending.get(controllerKey)?.adds.delete(objectKey);
  }

  /** The cache saw the deletion. */
  observeDeletion(controllerKey: string, objectKey: string): void {
    this.pending.get(controllerKey)?.deletes.delete(objectKey);
  }

  /** Whether nothing is pending (or what was pending has expired). */
  satisfied(controllerKey: string): boolean {
    const e = this.pending.get(controllerKey);
    if (!e) return true;
    if (e.adds.size === 0 && e.deletes.size === 0) return true;
    if (Date.now() - e.at > this.ttlMs) {
      this.pending.delete(controllerKey);
      return true;
    }
    return false;
  }

  /** Forgets a controller key (its object was deleted). */
  delete(controllerKey: string): void {
    this.pending.delete(controllerKey);
  }
}
