import type { PodUnavailableBudget } from '@kruise/api';
import { ConflictError, NotFoundError } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { BudgetConflictError, PubBudgetKeeper, type PubStore } from '../../src/workload/pub/budget-keeper.ts';
import { decidePodDisruption } from '../../src/workload/pub/pod-disruption.ts';

/**
 * The budget keeper against an API-like store that enforces resourceVersions: two keepers (two
 * kruise-manager replicas), each with its own lagging cache, never spend one unit twice.
 */
class FakeApi {
  stored: PodUnavailableBudget;
  writes = 0;
  conflicts = 0;
  /** Extra delay of a write, to let concurrent writers overlap. */
  delayMs = 0;

  constructor(pub: PodUnavailableBudget) {
    this.stored = pub;
  }

  store(cache: () => PodUnavailableBudget | undefined): PubStore {
    return {
      synced: async () => undefined,
      cached: () => cache(),
      read: async () => structuredClone(this.stored),
      writeStatus: async (pub) => {
        await new Promise((r) => setTimeout(r, this.delayMs));
        if (pub.metadata?.resourceVersion !== this.stored.metadata?.resourceVersion) {
          this.conflicts++;
          throw new ConflictError(409, { reason: 'Conflict', message: 'the object has been modified' });
        }
        this.writes++;
        this.stored = structuredClone(pub);
        this.stored.metadata!.resourceVersion = String(Number(pub.metadata!.resourceVersion) + 1);
        return structuredClone(this.stored);
      },
    };
  }
}

const budget = (allowed: number): PodUnavailableBudget => ({
  metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '10', generation: 1 },
  spec: { selector: { matchLabels: { app: 'web' } }, maxUnavailable: allowed },
  status: {
    unavailableAllowed: allowed,
    currentAvailable: 50,
    desiredAvailable: 50 - allowed,
    totalReplicas: 50,
  },
});

const readyPod = (name: string) => ({
  metadata: { name, namespace: 'default', annotations: { 'kruise.io/related-pub': 'web' } },
  spec: { containers: [{ name: 'c', image: 'busybox:1' }] },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [{ name: 'c', image: 'busybox:1', imageID: 'x', ready: true, restartCount: 0 }],
  },
});

const deps = (keeper: PubBudgetKeeper) => ({
  keeper,
  kubeletHash: () => 0,
  inPlacePodVerticalScaling: false,
  now: () => new Date('2026-12-07T10:00:00Z'),
});

describe('PubBudgetKeeper', () => {
  it('lets two replicas with stale caches spend exactly the budget among 200 concurrent deletions', async () => {
    const api = new FakeApi(budget(5));
    api.delayMs = 1;
    const stale = structuredClone(api.stored);
    // each replica's cache never catches up: only its own writes and fresh reads inform it
    const a = new PubBudgetKeeper(api.store(() => stale));
    const b = new PubBudgetKeeper(api.store(() => stale));
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        decidePodDisruption(readyPod(`p${i}`) as never, 'DELETE', 'u', false, deps(i % 2 ? a : b)),
      ),
    );
    const allowed = decisions.filter((d) => d.allowed).length;
    expect(allowed).toBe(5);
    expect(api.stored.status?.unavailableAllowed).toBe(0);
    expect(Object.keys(api.stored.status?.disruptedPods ?? {})).toHaveLength(5);
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused.every((d) => !d.allowed && d.message.includes('"web" is forbidden'))).toBe(true);
    expect(
      refused.filter((d) => !d.allowed && d.message.endsWith('pub unavailable allowed is negative')).length,
    ).toBeGreaterThan(150);
  });

  it('starts from its own last write when the cache lags, and from the cache once it catches up', async () => {
    const api = new FakeApi(budget(2));
    let cache: PodUnavailableBudget = structuredClone(api.stored);
    const keeper = new PubBudgetKeeper(api.store(() => cache));
    await keeper.change('default', 'web', (pub) => {
      pub.status!.unavailableAllowed = 1;
      return { write: true, result: undefined };
    });
    expect(keeper.newest('default', 'web')?.status?.unavailableAllowed).toBe(1);
    expect(keeper.remembered).toBe(1);
    cache = structuredClone(api.stored);
    expect(keeper.newest('default', 'web')?.metadata?.resourceVersion).toBe('11');
    expect(keeper.remembered).toBe(0);
  });

  it('gives up with upstream words after five conflicting writes, and answers undefined for a budget gone', async () => {
    const api = new FakeApi(budget(2));
    const store = api.store(() => api.stored);
    let attempts = 0;
    const always: PubStore = {
      ...store,
      writeStatus: async () => {
        attempts++;
        throw new ConflictError(409, { reason: 'Conflict' });
      },
    };
    const keeper = new PubBudgetKeeper(always, () => 0);
    await expect(keeper.change('default', 'web', () => ({ write: true, result: 1 }))).rejects.toThrow(
      new BudgetConflictError("couldn't update PodUnavailableBudget web due to conflicts"),
    );
    expect(attempts).toBe(5);
    const decision = await decidePodDisruption(readyPod('p') as never, 'DELETE', 'u', false, deps(keeper));
    expect(decision).toMatchObject({
      allowed: false,
      message: "Timeout: couldn't update PodUnavailableBudget web due to conflicts",
    });
    const gone = new PubBudgetKeeper({
      ...store,
      writeStatus: async () => {
        throw new NotFoundError(404, {});
      },
    });
    expect(await gone.change('default', 'web', () => ({ write: true, result: 1 }))).toBeUndefined();
  });

  it('writes nothing on a dry run and takes nothing for a pod already recorded', async () => {
    const api = new FakeApi(budget(1));
    const keeper = new PubBudgetKeeper(api.store(() => api.stored));
    expect(
      (await decidePodDisruption(readyPod('p1') as never, 'EVICT', 'u', true, deps(keeper))).allowed,
    ).toBe(true);
    expect(api.writes).toBe(0);
    expect(
      (await decidePodDisruption(readyPod('p1') as never, 'EVICT', 'u', false, deps(keeper))).allowed,
    ).toBe(true);
    expect(api.stored.status?.disruptedPods).toHaveProperty('p1');
    // the same pod again (a retried request): already counted, so allowed though nothing is left
    expect(
      (await decidePodDisruption(readyPod('p1') as never, 'DELETE', 'u', false, deps(keeper))).allowed,
    ).toBe(true);
    expect(api.writes).toBe(1);
    expect(
      (await decidePodDisruption(readyPod('p2') as never, 'DELETE', 'u', false, deps(keeper))).allowed,
    ).toBe(false);
  });
});

describe('a pod already being deleted', () => {
  it('takes nothing more from the budget when it is deleted or evicted again', async () => {
    const api = new FakeApi(budget(1));
    const keeper = new PubBudgetKeeper(api.store(() => api.stored));
    const pod = readyPod('p1') as { metadata: Record<string, unknown> };
    pod.metadata.deletionTimestamp = '2026-12-07T10:00:00Z';
    for (const op of ['DELETE', 'EVICT'] as const)
      expect((await decidePodDisruption(pod as never, op, 'u', false, deps(keeper))).allowed).toBe(true);
    expect(api.writes).toBe(0);
    expect(api.stored.status?.unavailableAllowed).toBe(1);
  });
});

describe('group commit', () => {
  it('decides the changes that wait for a write together and writes them once', async () => {
    const api = new FakeApi(budget(50));
    api.stored.status = {
      unavailableAllowed: 50,
      currentAvailable: 100,
      desiredAvailable: 50,
      totalReplicas: 100,
    };
    api.delayMs = 5;
    const keeper = new PubBudgetKeeper(api.store(() => api.stored));
    const decisions = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        decidePodDisruption(readyPod(`p${i}`) as never, 'DELETE', 'u', false, deps(keeper)),
      ),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
    expect(Object.keys(api.stored.status?.disruptedPods ?? {})).toHaveLength(50);
    expect(api.stored.status?.unavailableAllowed).toBe(0);
    // the first request alone, then everything that queued meanwhile in one write
    expect(api.writes).toBeLessThanOrEqual(3);
  });

  it('lets a dry run in a batch take nothing from the others', async () => {
    const api = new FakeApi(budget(1));
    api.delayMs = 5;
    const keeper = new PubBudgetKeeper(api.store(() => api.stored));
    const [blocker, dry, real] = await Promise.all([
      decidePodDisruption(readyPod('a') as never, 'DELETE', 'u', true, deps(keeper)),
      decidePodDisruption(readyPod('b') as never, 'DELETE', 'u', true, deps(keeper)),
      decidePodDisruption(readyPod('c') as never, 'DELETE', 'u', false, deps(keeper)),
    ]);
    expect([blocker.allowed, dry.allowed, real.allowed]).toEqual([true, true, true]);
    expect(Object.keys(api.stored.status?.disruptedPods ?? {})).toEqual(['c']);
  });
});
