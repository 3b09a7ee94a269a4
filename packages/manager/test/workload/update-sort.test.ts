import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  activePodsLess,
  deletionCost,
  sameNodeRanks,
  sortActivePods,
} from '../../src/workload/pod-sorter.ts';
import { sortByPriority, sortByScatter } from '../../src/workload/update-sort.ts';

const pod = (name: string, labels: Record<string, string> = {}, extra: Partial<Pod> = {}): Pod =>
  ({ metadata: { name, uid: name, labels }, spec: { containers: [] }, ...extra }) as Pod;
const names = (pods: Pod[]) => pods.map((p) => p.metadata!.name);

describe('update priority', () => {
  it('weight terms: higher total weight first, ties keep their order', () => {
    const pods = [pod('a', { t: 'x' }), pod('b', { t: 'y', z: '1' }), pod('c'), pod('d', { t: 'y' })];
    const sorted = sortByPriority(pods, {
      weightPriority: [
        { weight: 50, matchSelector: { matchLabels: { t: 'y' } } },
        { weight: 10, matchSelector: { matchExpressions: [{ key: 'z', operator: 'Exists' }] } },
      ],
    });
    expect(names(sorted)).toEqual(['b', 'd', 'a', 'c']);
  });

  it('order terms: pods with none of the keys first, then by key order, larger trailing integer first', () => {
    const pods = [
      pod('a', { k1: 'sts-2' }),
      pod('b', { k2: '9' }),
      pod('c', { k1: 'sts-10' }),
      pod('d'),
      pod('e', { k1: 'x' }),
    ];
    const sorted = sortByPriority(pods, { orderPriority: [{ orderedKey: 'k1' }, { orderedKey: 'k2' }] });
    expect(names(sorted)).toEqual(['d', 'c', 'a', 'e', 'b']);
  });
});

describe('update scatter', () => {
  it('spreads 3 labelled pods of 10 to the 1st, 6th and 10th places', () => {
    const pods = Array.from({ length: 10 }, (_, i) => pod(`p${i}`, i < 3 ? { zone: 'a' } : {}));
    const sorted = sortByScatter(pods, pods, [{ key: 'zone', value: 'a' }]);
    const places = sorted.flatMap((p, i) => (p.metadata!.labels!.zone ? [i + 1] : []));
    expect(places).toEqual([1, 6, 10]);
    expect(new Set(names(sorted)).size).toBe(10);
  });

  it('leaves the order alone when fewer than two pods match or fewer than two do not', () => {
    const pods = [pod('a', { zone: 'a' }), pod('b'), pod('c')];
    expect(names(sortByScatter(pods, pods, [{ key: 'zone', value: 'a' }]))).toEqual(['a', 'b', 'c']);
  });
});

describe('active pods order', () => {
  const running = (name: string, readySince?: string, extra: Partial<Pod> = {}) =>
    pod(name, {}, {
      spec: { nodeName: 'n1', containers: [] },
      status: {
        phase: 'Running',
        conditions: readySince ? [{ type: 'Ready', status: 'True', lastTransitionTime: readySince }] : [],
      },
      ...extra,
    } as Partial<Pod>);

  it('puts unscheduled, pending, not-ready, recently ready, restarted and newer pods first', () => {
    const unscheduled = pod('unscheduled');
    const pending = pod('pending', {}, {
      spec: { nodeName: 'n1', containers: [] },
      status: { phase: 'Pending' },
    } as Partial<Pod>);
    const notReady = running('not-ready');
    const old = running('ready-long', '2026-01-01T00:00:00Z');
    const recent = running('ready-recent', '2026-01-01T01:00:00Z');
    const sorted = sortActivePods([old, recent, notReady, pending, unscheduled]);
    expect(names(sorted)).toEqual(['unscheduled', 'pending', 'not-ready', 'ready-recent', 'ready-long']);
    expect(activePodsLess(old, recent)).toBe(false);
  });

  it('deletes lower deletion-cost pods first, reading the annotation as Kubernetes does', () => {
    const cheap = running('cheap', '2026-01-01T00:00:00Z');
    cheap.metadata!.annotations = { 'controller.kubernetes.io/pod-deletion-cost': '-5' };
    const dear = running('dear', '2026-01-01T01:00:00Z');
    dear.metadata!.annotations = { 'controller.kubernetes.io/pod-deletion-cost': '100' };
    expect(names(sortActivePods([dear, cheap], { deletionCost: true }))).toEqual(['cheap', 'dear']);
    expect(
      deletionCost(
        pod('x', {}, {
          metadata: { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '007' } },
        } as Partial<Pod>),
      ),
    ).toBe(0);
  });

  it('ranks all but one pod of a crowded node', () => {
    const a = running('a', '2026-01-01T00:00:00Z');
    const b = running('b', '2026-01-01T01:00:00Z');
    const c = pod('c', {}, { spec: { nodeName: 'n2', containers: [] } } as Partial<Pod>);
    const ranks = sameNodeRanks([a, b, c]);
    expect([...ranks.entries()]).toEqual([['b', 1]]);
  });
});
