import type { KubeObject } from '@kruise/runtime';
import { NotFoundError } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import type { LimitsClient } from '../../src/restart-in-place/limits.ts';
import { type Pub, pubForPod, pubLimits, pubMinAvailable } from '../../src/restart-in-place/pub-limits.ts';

const OWNER = {
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  name: 'web',
  uid: 'u1',
  controller: true,
};

/** A pod of the CloneSet `web`, Running and Ready unless told. */
function pod(
  name: string,
  o: {
    ready?: boolean;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    owner?: object;
  } = {},
): KubeObject {
  return {
    metadata: {
      name,
      namespace: 'ns',
      labels: o.labels ?? { app: 'web' },
      annotations: o.annotations ?? {},
      ownerReferences: [o.owner ?? OWNER],
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
    },
  };
}

function pub(name: string, spec: Pub['spec'], extra: Partial<Pub> = {}): Pub {
  return { ...extra, metadata: { name, namespace: 'ns', generation: 1, ...extra.metadata }, spec } as Pub;
}

/** A client whose lists answer from these objects (`pubs` undefined: the CRD is not installed). */
function fakeClient(pubs: Pub[] | undefined, pods: KubeObject[]): LimitsClient & { lists: string[] } {
  const lists: string[] = [];
  return {
    lists,
    listAll: (async (r: { plural: string }) => {
      lists.push(r.plural);
      if (r.plural === 'podunavailablebudgets') {
        if (!pubs)
          throw new NotFoundError(404, { message: 'the server could not find the requested resource' });
        return { metadata: {}, items: pubs };
      }
      return { metadata: {}, items: pods };
    }) as LimitsClient['listAll'],
  };
}

describe('pubForPod', () => {
  const bySelector = pub('b-selector', { selector: { matchLabels: { app: 'web' } }, maxUnavailable: 1 });
  const byTarget = pub('c-target', {
    targetRef: { apiVersion: 'apps.kruise.io/v1beta1', kind: 'CloneSet', name: 'web' },
    maxUnavailable: 1,
  });
  const other = pub('a-other', { selector: { matchLabels: { app: 'db' } }, maxUnavailable: 1 });

  it('takes the budget the related-pub annotation names, and none when that one is gone', () => {
    const annotated = pod('p', { annotations: { 'kruise.io/related-pub': 'c-target' } });
    expect(pubForPod(annotated, [other, bySelector, byTarget])).toBe(byTarget);
    const stale = pod('p', { annotations: { 'kruise.io/related-pub': 'deleted' } });
    expect(pubForPod(stale, [other, bySelector, byTarget])).toBeUndefined();
  });

  it('falls back to the first budget by name whose selector matches or whose targetRef is the controller', () => {
    expect(pubForPod(pod('p'), [byTarget, bySelector, other])).toBe(bySelector);
    expect(pubForPod(pod('p', { labels: { app: 'x' } }), [bySelector, byTarget])).toBe(byTarget);
    const otherOwner = { ...OWNER, kind: 'StatefulSet' };
    expect(pubForPod(pod('p', { labels: { app: 'x' }, owner: otherOwner }), [byTarget])).toBeUndefined();
  });

  it('matches nothing with an empty selector, and nothing for a no-protect pod', () => {
    expect(pubForPod(pod('p'), [pub('e', { selector: {}, maxUnavailable: 1 })])).toBeUndefined();
    const optedOut = pod('p', {
      annotations: { 'kruise.io/related-pub': 'b-selector', 'pub.kruise.io/no-protect': 'true' },
    });
    expect(pubForPod(optedOut, [bySelector])).toBeUndefined();
  });
});

describe('pubMinAvailable', () => {
  it("takes the budget's desiredAvailable once it observed the current generation, else computes it", () => {
    const status = {
      desiredAvailable: 5,
      observedGeneration: 2,
      unavailableAllowed: 0,
      currentAvailable: 0,
      totalReplicas: 0,
    };
    const p = pub('p', { maxUnavailable: 1 }, { metadata: { generation: 2 }, status });
    expect(pubMinAvailable(p, 4)).toBe(5);
    expect(pubMinAvailable({ ...p, metadata: { ...p.metadata, generation: 3 } }, 4)).toBe(3);
    expect(pubMinAvailable(pub('p', { minAvailable: '50%' }), 5)).toBe(3);
    const total = pub(
      'p',
      { maxUnavailable: 1 },
      {
        metadata: { annotations: { 'pub.kruise.io/protect-total-replicas': '10' } },
      },
    );
    expect(pubMinAvailable(total, 4)).toBe(9);
  });
});

describe('pubLimits', () => {
  const covering = (extra: Partial<Pub> = {}) =>
    pub('web-pub', { selector: { matchLabels: { app: 'web' } }, maxUnavailable: 1 }, extra);

  it('makes one limit over every pod the budget covers, counting recorded and labelled pods unavailable', async () => {
    const ours = [
      pod('web-a'),
      pod('web-b', { labels: { app: 'web', 'unavailable-pod.kruise.io/drain': 'true' } }),
      pod('web-c'),
    ];
    const outsider = pod('other-x', { owner: { ...OWNER, name: 'web-canary', uid: 'u2' } });
    const stranger = pod('db-0', { labels: { app: 'db' } });
    const status = {
      unavailablePods: { 'web-c': '2026-01-01T00:00:00Z' },
      unavailableAllowed: 0,
      currentAvailable: 2,
      desiredAvailable: 3,
      totalReplicas: 4,
      observedGeneration: 1,
    };
    const client = fakeClient([covering({ status })], [...ours, outsider, stranger]);
    const got = await pubLimits(client, 'ns', ours, 3);
    expect(got.limits).toEqual([
      {
        source: 'podunavailablebudget/web-pub',
        covers: new Set(['web-a', 'web-b', 'web-c', 'other-x']),
        minAvailable: 3,
        unavailable: new Set(['web-c', 'web-b']),
      },
    ]);
    expect(got.others).toEqual([{ name: 'other-x', available: true }]);
    expect([...got.budgetOf]).toEqual([
      ['web-a', 'web-pub'],
      ['web-b', 'web-pub'],
      ['web-c', 'web-pub'],
    ]);
  });

  it('computes the minimum over replicas and outside pods until the budget has observed its spec', async () => {
    const ours = [pod('web-a'), pod('web-b')];
    const got = await pubLimits(fakeClient([covering()], ours), 'ns', ours, 4);
    expect(got.limits[0]!.minAvailable).toBe(3); // 4 replicas − maxUnavailable 1
  });

  it('ignores budgets that do not protect UPDATE, cover none of the pods, or are not installed', async () => {
    const ours = [pod('web-a')];
    const deleteOnly = covering({
      metadata: { annotations: { 'kruise.io/pub-protect-operations': 'DELETE' } },
    });
    expect((await pubLimits(fakeClient([deleteOnly], ours), 'ns', ours, 1)).limits).toEqual([]);
    const db = pub('db', { selector: { matchLabels: { app: 'db' } }, maxUnavailable: 1 });
    const client = fakeClient([db], ours);
    expect(await pubLimits(client, 'ns', ours, 1)).toEqual({ limits: [], others: [], budgetOf: new Map() });
    expect(client.lists).toEqual(['podunavailablebudgets']); // no pod list when nothing is covered
    expect((await pubLimits(fakeClient(undefined, ours), 'ns', ours, 1)).limits).toEqual([]);
  });

  it('counts a pod under the budget it is annotated with, even when another selects it', async () => {
    const ours = [pod('web-a', { annotations: { 'kruise.io/related-pub': 'z-pub' } }), pod('web-b')];
    const z = pub('z-pub', { selector: { matchLabels: { tier: 'none' } }, minAvailable: 1 });
    const got = await pubLimits(fakeClient([covering(), z], ours), 'ns', ours, 2);
    expect(got.limits.map((l) => [l.source, [...l.covers]])).toEqual([
      ['podunavailablebudget/z-pub', ['web-a']],
      ['podunavailablebudget/web-pub', ['web-b']],
    ]);
  });
});
