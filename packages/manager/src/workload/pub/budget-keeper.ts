import type { PodUnavailableBudget } from '@kruise/api';
import { isConflict, isNotFound } from '@kruise/runtime';

/** Where budgets are read and written. */
export interface PubStore {
  /** Resolves once the cache has listed (rejects `caches not synced` past a while). */
  synced(): Promise<void>;
  /** The budget in the shared informer's cache (it may lag behind the API). */
  cached(namespace: string, name: string): PodUnavailableBudget | undefined;
  /** The budget as the API server has it now; undefined when it is gone. */
  read(namespace: string, name: string): Promise<PodUnavailableBudget | undefined>;
  /** Writes the status subresource, conditioned on the budget's resourceVersion (409 when stale). */
  writeStatus(pub: PodUnavailableBudget): Promise<PodUnavailableBudget>;
}

/** What one look at a budget decided: whether to write the changed copy, and what to answer. */
export interface BudgetChange<T> {
  write: boolean;
  result: T;
}

/** A budget that kept changing under every attempt to write it. */
export class BudgetConflictError extends Error {}

/** Writes tried before giving up on conflicts. */
const ATTEMPTS = 5;

const key = (namespace: string, name: string) => `${namespace}/${name}`;

/** The resourceVersion as a number for ordering, or -1 when it is not one. */
function versionOf(pub: PodUnavailableBudget | undefined): bigint {
  try {
    return BigInt(pub?.metadata?.resourceVersion ?? '-1');
  } catch {
    return -1n;
  }
}

/** A change waiting for its budget's next write. */
interface Waiter {
  decide: (pub: PodUnavailableBudget) => BudgetChange<unknown>;
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

/** The most changes decided together and written in one status write. */
const MAX_BATCH = 500;

/**
 * The budgets of one kruise-manager process, changed one write at a time per budget (the pod
 * webhooks of this replica and, on the leader, the controller): each write starts from the newer
 * of the informer's copy and the last one this process wrote, carries the resourceVersion it was
 * decided on, and on a conflict is decided again from a fresh read — so two replicas can never both
 * spend the same unit of a budget. Changes that arrive while a write is in flight are decided
 * together, in order, on one copy and written with one status write (group commit: a burst of
 * deletions costs a few writes, not one each). Between attempts it waits a few milliseconds,
 * jittered, so replicas do not collide in step (upstream waits 500 ms).
 */
export class PubBudgetKeeper {
  private readonly store: PubStore;
  private readonly written = new Map<string, PodUnavailableBudget>();
  private readonly waiting = new Map<string, Waiter[]>();
  private readonly random: () => number;

  constructor(store: PubStore, random: () => number = Math.random) {
    this.store = store;
    this.random = random;
  }

  /** The newest copy this process knows without asking the API: the cache's, or its own last write. */
  newest(namespace: string, name: string): PodUnavailableBudget | undefined {
    const cached = this.store.cached(namespace, name);
    const mine = this.written.get(key(namespace, name));
    if (!mine) return cached;
    if (!cached) return undefined;
    if (cached.metadata?.uid !== mine.metadata?.uid || versionOf(cached) >= versionOf(mine)) {
      this.written.delete(key(namespace, name));
      return cached;
    }
    return mine;
  }

  /** Resolves once the budgets' cache has listed; a decision before that would miss budgets. */
  synced(): Promise<void> {
    return this.store.synced();
  }

  /** Drops what this process remembers of a budget (deleted, or no longer written here). */
  forget(namespace: string, name: string): void {
    this.written.delete(key(namespace, name));
  }

  /** How many budgets this process remembers a write of. */
  get remembered(): number {
    return this.written.size;
  }

  /**
   * Changes one budget: `decide` gets a copy to change in place (never when it will not ask for
   * the write: a later change of the same batch sees the copy) and says whether to write it;
   * conflicts re-read and decide again, so `decide` must do nothing else.
   * @returns decide's result, or undefined when the budget does not exist (or went away meanwhile).
   * @throws BudgetConflictError after {@link ATTEMPTS} conflicting writes; any other API error.
   */
  change<T>(
    namespace: string,
    name: string,
    decide: (pub: PodUnavailableBudget) => BudgetChange<T>,
  ): Promise<T | undefined> {
    const k = key(namespace, name);
    return new Promise<T | undefined>((resolve, reject) => {
      const queue = this.waiting.get(k);
      const waiter = { decide, resolve: resolve as (r: unknown) => void, reject };
      if (queue) {
        queue.push(waiter);
        return;
      }
      this.waiting.set(k, [waiter]);
      void this.drain(namespace, name);
    });
  }

  /** Writes the waiting changes of one budget, a batch at a time, until none waits. */
  private async drain(namespace: string, name: string): Promise<void> {
    const k = key(namespace, name);
    for (;;) {
      const queue = this.waiting.get(k)!;
      if (queue.length === 0) {
        this.waiting.delete(k);
        return;
      }
      await this.commit(namespace, name, queue.splice(0, MAX_BATCH));
    }
  }

  /** Decides a batch on one copy and writes it once, again from a fresh read after a conflict. */
  private async commit(namespace: string, name: string, batch: Waiter[]): Promise<void> {
    try {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, attempt * 2 + this.random() * 8));
        const base = attempt === 0 ? this.newest(namespace, name) : await this.store.read(namespace, name);
        if (!base) {
          this.forget(namespace, name);
          for (const w of batch) w.resolve(undefined);
          return;
        }
        const copy = structuredClone(base);
        const changes = batch.map((w) => w.decide(copy));
        if (changes.some((c) => c.write)) {
          try {
            this.written.set(key(namespace, name), await this.store.writeStatus(copy));
          } catch (err) {
            if (isConflict(err)) continue;
            if (!isNotFound(err)) throw err;
            this.forget(namespace, name);
            for (const w of batch) w.resolve(undefined);
            return;
          }
        }
        for (const [i, w] of batch.entries()) w.resolve(changes[i]!.result);
        return;
      }
      throw new BudgetConflictError(`couldn't update PodUnavailableBudget ${name} due to conflicts`);
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}
