import { describe, expect, it } from 'vitest';
import {
  REVISION,
  REVISION_HISTORY,
  setNewReplicaSetAnnotations,
} from '../src/controllers/deployment/annotations.ts';
import { podTemplateHash } from '../src/controllers/deployment/pod-template-hash.ts';
import { fenceposts, maxUnavailable, newReplicaSetSize } from '../src/controllers/deployment/replicas.ts';
import { podsToDelete } from '../src/controllers/replicaset/pod-ranking.ts';
import { slowStartBatch } from '../src/controllers/replicaset/slow-start.ts';
import type { KubeObject } from '../src/registry/types.ts';

const rolling = (replicas: number, maxSurge: unknown, maxUnavailable: unknown): KubeObject => ({
  spec: { replicas, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } } },
});

describe('slow-start batches', () => {
  it('creates 1, 2, 4, 8 … at once and stops after the first batch with a failure', async () => {
    const batches: number[] = [];
    let inFlight = 0;
    let calls = 0;
    const ok = await slowStartBatch(20, async () => {
      if (inFlight === 0) batches.push(0);
      inFlight++;
      batches[batches.length - 1]!++;
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
    });
    expect(batches).toEqual([1, 2, 4, 8, 5]);
    expect(ok).toEqual({ successes: 20, attempted: 20 });
    const failing = await slowStartBatch(20, async () => {
      calls++;
      if (calls >= 3) throw new Error('refused');
    });
    expect(failing).toMatchObject({ successes: 2, attempted: 3, error: new Error('refused') });
  });
});

describe('scale-down order', () => {
  const pod = (name: string, extra: Record<string, any> = {}): KubeObject => ({
    metadata: { name, uid: name, creationTimestamp: '2026-01-01T00:00:00Z', ...extra.metadata },
    spec: { nodeName: 'n1', ...extra.spec },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:10Z' }],
      ...extra.status,
    },
  });
  const names = (pods: KubeObject[]) => pods.map((p) => p.metadata?.name);

  it('ranks unassigned, Pending, not ready, cheaper, doubled-up, restarted, newer pods first', () => {
    const pods = [
      pod('running'),
      pod('unassigned', { spec: { nodeName: '' } }),
      pod('pending', { status: { phase: 'Pending', conditions: [] } }),
      pod('not-ready', { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } }),
      pod('cheap', { metadata: { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '-10' } } }),
      pod('dear', { metadata: { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '10' } } }),
    ];
    const related = [...pods, pod('other-on-n1')];
    const order = names(podsToDelete(pods, related, 5));
    expect(order).toEqual(['unassigned', 'pending', 'not-ready', 'cheap', 'running']);
    const restarted = pod('restarted', { status: { containerStatuses: [{ restartCount: 3 }] } });
    expect(names(podsToDelete([pod('calm'), restarted], [], 1))).toEqual(['restarted']);
    const crowded = pod('crowded', { spec: { nodeName: 'n2' } });
    const related2 = [
      crowded,
      pod('a', { spec: { nodeName: 'n2' } }),
      pod('alone', { spec: { nodeName: 'n3' } }),
    ];
    expect(names(podsToDelete([pod('alone', { spec: { nodeName: 'n3' } }), crowded], related2, 1))).toEqual([
      'crowded',
    ]);
  });
});

describe('Deployment arithmetic', () => {
  it('rounds maxSurge up and maxUnavailable down, never both 0', () => {
    expect(fenceposts(rolling(10, '25%', '25%'))).toEqual({ surge: 3, unavailable: 2 });
    expect(fenceposts(rolling(1, '25%', '25%'))).toEqual({ surge: 1, unavailable: 0 });
    expect(fenceposts(rolling(3, 0, 0))).toEqual({ surge: 0, unavailable: 1 });
    expect(maxUnavailable(rolling(2, 0, 5))).toBe(2);
    expect(() => fenceposts(rolling(3, '12.5%', 0))).toThrow('invalid value for IntOrString');
  });

  it('grows the new ReplicaSet only as far as replicas + maxSurge leaves room', () => {
    const d = rolling(6, 2, 1);
    const old = { spec: { replicas: 6 } };
    expect(newReplicaSetSize(d, [old, { spec: { replicas: 0 } }], { spec: { replicas: 0 } })).toBe(2);
    expect(
      newReplicaSetSize(d, [{ spec: { replicas: 1 } }, { spec: { replicas: 2 } }], { spec: { replicas: 2 } }),
    ).toBe(6);
  });

  it('hashes the template with the collision count, in safe characters', () => {
    const template = {
      metadata: { labels: { app: 'x' } },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    };
    const h = podTemplateHash(template);
    expect(h).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    expect(podTemplateHash(structuredClone(template))).toBe(h);
    expect(podTemplateHash(template, 1)).not.toBe(h);
    expect(podTemplateHash({ spec: template.spec, metadata: template.metadata })).toBe(h);
  });

  it('keeps the old revision in revision-history when a ReplicaSet comes back', () => {
    const rs: KubeObject = { metadata: { annotations: { [REVISION]: '1' } } };
    const d = {
      metadata: { annotations: { 'kubernetes.io/change-cause': 'undo', [REVISION]: '2' } },
      spec: { replicas: 3 },
    };
    expect(setNewReplicaSetAnnotations(d, rs, 3, true, 4)).toBe(true);
    expect(rs.metadata?.annotations).toEqual({
      [REVISION]: '3',
      [REVISION_HISTORY]: '1',
      'kubernetes.io/change-cause': 'undo',
    });
    setNewReplicaSetAnnotations(d, rs, 5, true, 4);
    expect(rs.metadata?.annotations?.[REVISION_HISTORY]).toBe('1,3');
  });
});
