import { describe, expect, it } from 'vitest';
import {
  type AvailabilityLimit,
  budgetMinAvailable,
  cloneSetMaxUnavailable,
} from '../../src/restart-in-place/budget.ts';
import { nextBatch, type RestartSnapshot, restartOrder } from '../../src/restart-in-place/plan.ts';

const pods = (spec: string) =>
  // "a+ b- c+": a available, b not
  new Map(
    spec.split(' ').map((t) => {
      const name = t.slice(0, -1);
      return [name, { name, available: t.endsWith('+') }];
    }),
  );

const snapshot = (over: Partial<RestartSnapshot> & { pods: RestartSnapshot['pods'] }): RestartSnapshot => {
  const names = [...over.pods.keys()];
  const maxUnavailable = over.maxUnavailable ?? 1;
  return {
    pending: names,
    inFlight: new Set(),
    maxUnavailable,
    limits: [{ source: 'workload', covers: new Set(names), minAvailable: names.length - maxUnavailable }],
    ...over,
  };
};

describe('nextBatch', () => {
  it('starts maxUnavailable pods when all are available', () => {
    const s = snapshot({ pods: pods('a+ b+ c+ d+'), maxUnavailable: 2 });
    expect(nextBatch(s)).toEqual({ start: ['a', 'b'] });
  });

  it('counts restarts under way against maxUnavailable', () => {
    const s = snapshot({ pods: pods('a+ b+ c+ d+'), maxUnavailable: 2 });
    s.inFlight = new Set(['a']);
    s.pending = ['b', 'c', 'd'];
    expect(nextBatch(s).start).toEqual(['b']);
    s.inFlight = new Set(['a', 'b']);
    s.pending = ['c', 'd'];
    expect(nextBatch(s).start).toEqual([]);
  });

  it('counts pods already not available: a ready pod waits while another is down', () => {
    const s = snapshot({ pods: pods('a+ b+ c- d+'), maxUnavailable: 1, pending: ['a', 'b', 'd'] });
    expect(nextBatch(s)).toEqual({ start: [], blockedBy: 'workload' });
  });

  it('restarts a pod that is not available without spending the budget, but within maxUnavailable restarts at once', () => {
    const s = snapshot({ pods: pods('a+ b+ c- d+'), maxUnavailable: 1, pending: ['c', 'a', 'b', 'd'] });
    expect(nextBatch(s).start).toEqual(['c']);
    const two = snapshot({ pods: pods('a+ b+ c- d+'), maxUnavailable: 2, pending: ['c', 'a', 'b', 'd'] });
    expect(nextBatch(two).start).toEqual(['c', 'a']);
  });

  it('keeps a PodDisruptionBudget lower than maxUnavailable, counting its other pods', () => {
    const s = snapshot({ pods: pods('a+ b+ c+ d+ x-'), maxUnavailable: 2, pending: ['a', 'b', 'c', 'd'] });
    const pdb: AvailabilityLimit = {
      source: 'poddisruptionbudget/p',
      covers: new Set(['a', 'b', 'c', 'd']),
      minAvailable: 3,
    };
    s.limits.push(pdb);
    expect(nextBatch(s)).toEqual({ start: ['a'] });
    // a pod outside the workload that the budget selects and is down uses the budget up
    pdb.covers.add('x');
    pdb.minAvailable = 4;
    expect(nextBatch(s)).toEqual({ start: [], blockedBy: 'poddisruptionbudget/p' });
  });

  it('skips a pod a budget holds and starts one the budget does not cover', () => {
    const s = snapshot({ pods: pods('a+ b+ c+ d+'), maxUnavailable: 2 });
    s.limits.push({ source: 'poddisruptionbudget/ab', covers: new Set(['a', 'b']), minAvailable: 2 });
    expect(nextBatch(s).start).toEqual(['c', 'd']);
  });

  it('counts the pods a limit marks unavailable as down for that limit only', () => {
    const s = snapshot({ pods: pods('a+ b+ c+'), maxUnavailable: 3 });
    const pub: AvailabilityLimit = {
      source: 'podunavailablebudget/p',
      covers: new Set(['a', 'b', 'c']),
      minAvailable: 2,
      unavailable: new Set(['a']),
    };
    s.limits.push(pub);
    // a is Ready but recorded by the budget: b would leave one of its pods available
    s.pending = ['b', 'c'];
    expect(nextBatch(s)).toEqual({ start: [], blockedBy: 'podunavailablebudget/p' });
    // restarting a costs the budget nothing; the workload's limit still counts it
    s.pending = ['a', 'b', 'c'];
    expect(nextBatch(s)).toEqual({ start: ['a'] });
    pub.unavailable = new Set();
    expect(nextBatch(s)).toEqual({ start: ['a'] });
    pub.minAvailable = 1;
    expect(nextBatch(s)).toEqual({ start: ['a', 'b'] });
  });

  it('reports nothing blocked when every pending pod is under way', () => {
    const s = snapshot({ pods: pods('a+ b+'), pending: ['a'], inFlight: new Set(['a']) });
    expect(nextBatch(s)).toEqual({ start: [] });
  });
});

describe('restartOrder', () => {
  it('puts pods that are not available first, then orders by name', () => {
    expect(restartOrder([...pods('d+ b- a+ c-').values()])).toEqual(['b', 'c', 'a', 'd']);
  });
});

describe('cloneSetMaxUnavailable (the CloneSet controller rounding)', () => {
  it.each([
    [{ replicas: 4 }, 1], // default 20% of 4 = 0.8, up with maxSurge 0
    [{ replicas: 10 }, 2],
    [{ replicas: 4, updateStrategy: { maxUnavailable: '50%' } }, 2],
    [{ replicas: 5, updateStrategy: { maxUnavailable: '50%' } }, 3],
    [{ replicas: 5, updateStrategy: { maxUnavailable: '50%', maxSurge: 1 } }, 2], // down with surge
    [{ replicas: 5, updateStrategy: { maxUnavailable: '50%', maxSurge: 1, paused: true } }, 3], // paused: surge 0
    [{ replicas: 4, updateStrategy: { maxUnavailable: 3 } }, 3],
    [{ replicas: 4, updateStrategy: { maxUnavailable: 0, maxSurge: 1 } }, 0],
    [{ replicas: 4, updateStrategy: { maxUnavailable: '12.5%' } }, 0], // apimachinery rejects decimals: 0
  ])('%j → %i', (spec, want) => {
    expect(cloneSetMaxUnavailable(spec)).toBe(want);
  });
});

describe('budgetMinAvailable (the disruption controller)', () => {
  it.each([
    [{ minAvailable: 3 }, 4, 3],
    [{ minAvailable: '50%' }, 5, 3], // rounded up
    [{ maxUnavailable: 1 }, 4, 3],
    [{ maxUnavailable: '30%' }, 4, 2], // 1.2 up to 2 unavailable
    [{}, 4, 0],
  ])('%j of %i → %i', (spec, expected, want) => {
    expect(budgetMinAvailable({ spec }, expected)).toBe(want);
  });

  it("takes the budget's observed desiredHealthy when it is higher", () => {
    const pdb = {
      metadata: { generation: 2 },
      spec: { maxUnavailable: 1 },
      status: { desiredHealthy: 5, observedGeneration: 2 },
    };
    expect(budgetMinAvailable(pdb, 4)).toBe(5);
    expect(budgetMinAvailable({ ...pdb, status: { desiredHealthy: 5, observedGeneration: 1 } }, 4)).toBe(3);
  });
});
