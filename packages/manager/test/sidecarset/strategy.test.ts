import type { SidecarSet } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { stampedSidecarSet } from '../../../../test/support/sidecarset.ts';
import { nextUpgradePods } from '../../src/controllers/sidecarset/strategy.ts';
import { trimPod } from '../../src/informers.ts';
import { writePodSidecarSetHash } from '../../src/workload/sidecarset/index.ts';

/** The batch of a cold upgrade: order, partition, maxUnavailable, selector, not-upgradable pods. */
const ss = (strategy: Record<string, unknown> = {}, image = 'sidecar:v2') =>
  stampedSidecarSet({
    metadata: { name: 's' },
    spec: {
      selector: { matchLabels: { app: 's' } },
      containers: [{ name: 'sidecar', image }],
      updateStrategy: strategy,
    },
  } as SidecarSet);

/** A running pod injected with the v1 sidecar, Ready unless `ready` is false. */
function pod(
  name: string,
  opts: { ready?: boolean; labels?: Record<string, string>; env?: boolean } = {},
): Pod {
  const annotations: Record<string, string> = { 'kruise.io/sidecarset-injected-list': 's' };
  const old = ss({}, 'sidecar:v1');
  if (opts.env) old.spec!.containers![0]!.env = [{ name: 'A', value: 'b' }];
  writePodSidecarSetHash(annotations, stampedSidecarSet(old), { withoutImage: true });
  const ready = opts.ready !== false;
  return {
    metadata: {
      name,
      namespace: 'default',
      labels: { app: 's', ...opts.labels },
      annotations,
      creationTimestamp: '2026-01-01T00:00:00Z',
    },
    spec: {
      nodeName: 'n1',
      containers: [
        { name: 'app', image: 'app:v1' },
        { name: 'sidecar', image: 'sidecar:v1' },
      ],
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      containerStatuses: ['app', 'sidecar'].map((n) => ({
        name: n,
        image: n === 'app' ? 'app:v1' : 'sidecar:v1',
        imageID: `sha256:${n}`,
        ready,
        restartCount: 0,
      })),
    },
  } as Pod;
}

const names = (pods: Pod[]) => pods.map((p) => p.metadata?.name);

describe('nextUpgradePods', () => {
  it('takes one ready pod at a time by default, and every not-ready pod besides', () => {
    const plan = nextUpgradePods(ss(), [pod('a'), pod('b', { ready: false }), pod('c')]);
    expect(names(plan.upgrade)).toEqual(['b', 'a']);
    expect(plan.notUpgradable).toEqual([]);
  });

  it('keeps `partition` pods (a number or a percentage rounded up) at the old image', () => {
    const pods = ['a', 'b', 'c', 'd'].map((n) => pod(n));
    expect(nextUpgradePods(ss({ partition: 3, maxUnavailable: 4 }), pods).upgrade).toHaveLength(1);
    expect(nextUpgradePods(ss({ partition: '60%', maxUnavailable: 4 }), pods).upgrade).toHaveLength(1);
    expect(nextUpgradePods(ss({ partition: 4, maxUnavailable: 4 }), pods).upgrade).toHaveLength(0);
  });

  it('orders by priority, and only among the pods the selector picks', () => {
    const pods = [pod('a', { labels: { w: 'low' } }), pod('b', { labels: { w: 'high' } }), pod('c')];
    const plan = nextUpgradePods(
      ss({
        maxUnavailable: 3,
        priorityStrategy: { weightPriority: [{ weight: 10, matchSelector: { matchLabels: { w: 'high' } } }] },
      }),
      pods,
    );
    expect(names(plan.upgrade)[0]).toBe('b');
    expect(
      names(
        nextUpgradePods(ss({ maxUnavailable: 3, selector: { matchLabels: { w: 'low' } } }), pods).upgrade,
      ),
    ).toEqual(['a']);
  });

  it('reports pods whose sidecars differ beyond the image as not upgradable', () => {
    const plan = nextUpgradePods(ss({ maxUnavailable: 3 }), [pod('a', { env: true }), pod('b')]);
    expect(names(plan.notUpgradable)).toEqual(['a']);
    expect(names(plan.upgrade)).toEqual(['b']);
  });
});

describe('the trimmed pod cache', () => {
  it('keeps what the batch reads of pods with sidecars, and no images of other pods', () => {
    const pods = [pod('a'), pod('b', { ready: false }), pod('c', { env: true })];
    const trimmed = pods.map(trimPod);
    const plan = nextUpgradePods(ss(), trimmed);
    expect(names(plan.upgrade)).toEqual(['b', 'a']);
    expect(names(plan.notUpgradable)).toEqual(['c']);
    expect(trimmed[0]!.status?.containerStatuses?.[1]).toMatchObject({
      image: 'sidecar:v1',
      imageID: 'sha256:sidecar',
    });
    const plain = pod('d');
    delete plain.metadata!.annotations;
    expect(trimPod(plain).spec?.containers?.map((c) => c.image)).toEqual([undefined, undefined]);
  });
});
