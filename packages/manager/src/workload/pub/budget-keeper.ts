import type { PodUnavailableBudget } from '@kruise/api';
import { isConflict, isNotFound } from '@kruise/runtime';
import { KeyedMutex } from '../keyed-mutex.ts';

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

/**
 * The budgets of one kruise-manager process, changed one writer at a time per budget (the pod
 * webhooks of this replica and, on the leader, the controller): each change starts from the newer
 * of the informer's copy and the last one this process wrote, is written with its resourceVersion,
 * and on a conflict is decided again from a fresh read — so two replicas can never both spend the
 * same unit of a budget. Between attempts it waits a few milliseconds, jittered, so replicas do not
 * collide in step (upstream waits 500 ms).
 */
export class PubBudgetKeeper {
  private readonly store: PubStore;
  private readonly mutex = new KeyedMutex();
  private readonly written = new Map<string, PodUnavailableBudget>();
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
   * Changes one budget: `decide` gets a copy to change in place and says whether to write it;
   * conflicts re-read and decide again.
   * @returns decide's result, or undefined when the budget does not exist (or went away meanwhile).
   * @throws BudgetConflictError after {@link ATTEMPTS} conflicting writes; any other API error.
   */
  async change<T>(
    namespace: string,
    name: string,
    decide: (pub: PodUnavailableBudget) => BudgetChange<T>,
  ): Promise<T | undefined> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, attempt * 2 + this.random() * 8));
      const outcome = await this.mutex.run(key(namespace, name), async () => {
        const base = attempt === 0 ? this.newest(namespace, name) : await this.store.read(namespace, name);
        if (!base) return { gone: true as const };
        const copy = structuredClone(base);
        const change = decide(copy);
        if (!change.write) return { result: change.result };
        try {
          const stored = await this.store.writeStatus(copy);
          this.written.set(key(namespace, name), stored);
          return { result: change.result };
        } catch (err) {
          if (isConflict(err)) return { conflict: true as const };
          if (isNotFound(err)) return { gone: true as const };
          throw err;
        }
      });
      if ('gone' in outcome) {
        this.forget(namespace, name);
        return undefined;
      }
      if ('result' in outcome) return outcome.result;
    }
    throw new BudgetConflictError(`couldn't update PodUnavailableBudget ${name} due to conflicts`);
  }
}
