import { parseFeatureGates, type SidecarSet } from '@kruise/api';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { describe, expect, it } from 'vitest';
import { mutatePod } from '../../src/webhooks/pod/mutating.ts';
import { sidecarSetRevisionData } from '../../src/workload/sidecarset/revision-data.ts';
import { inject, lookups, sidecarSet, webPod } from './injection-helpers.ts';

const app = { name: 'app', image: 'nginx' };
const latest = (spec: SidecarSet['spec'] = {}) =>
  sidecarSet('mesh', { containers: [{ name: 'proxy', image: 'proxy:v2' }], ...spec }, 'hash-v2');

/** A stored revision of `mesh` with proxy at `image`, as the controller writes it. */
function revision(name: string, image: string, number: number, customVersion?: string): ControllerRevision {
  const old = sidecarSet('mesh', { containers: [{ name: 'proxy', image }] }, `hash-${image}`);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name,
      namespace: 'kruise-system',
      labels: {
        'kruise.io/sidecarset-name': 'mesh',
        ...(customVersion ? { 'apps.kruise.io/sidecarset-custom-version': customVersion } : {}),
      },
      annotations: { ...old.metadata?.annotations },
    },
    data: JSON.parse(sidecarSetRevisionData(old)),
    revision: number,
  };
}
const history = [
  revision('mesh-aaa', 'proxy:v1', 1, 'v1'),
  revision('mesh-bbb', 'proxy:v1.5', 2, 'v1'),
  revision('mesh-ccc', 'proxy:v2', 3),
];

/** The proxy image and the revision recorded in the pod after injection. */
async function injected(set: SidecarSet, opts: { labels?: Record<string, string>; random?: number } = {}) {
  const pod0 = webPod([app], { metadata: { labels: { app: 'web', ...opts.labels } } });
  const r = opts.random ?? 0.5;
  const { pod } = await inject(pod0, lookups([set], { default: {} }, history), { random: () => r });
  const hash = JSON.parse(pod.metadata!.annotations!['kruise.io/sidecarset-hash']!).mesh;
  return { image: pod.spec!.containers[1]!.image, revision: hash.controllerRevision, hash: hash.hash };
}

describe('SidecarSet injection: which revision', () => {
  it('injects the latest SidecarSet without a pinned revision', async () => {
    expect(await injected(latest())).toEqual({ image: 'proxy:v2', revision: 'mesh-rev1', hash: 'hash-v2' });
  });

  it('injects the revision pinned by revisionName, or the newest labelled with customVersion (policy Always)', async () => {
    expect(await injected(latest({ injectionStrategy: { revision: { revisionName: 'mesh-aaa' } } }))).toEqual(
      {
        image: 'proxy:v1',
        revision: 'mesh-aaa',
        hash: 'hash-proxy:v1',
      },
    );
    expect(
      await injected(latest({ injectionStrategy: { revision: { customVersion: 'v1', policy: 'Always' } } })),
    ).toEqual({
      image: 'proxy:v1.5',
      revision: 'mesh-bbb',
      hash: 'hash-proxy:v1.5',
    });
  });

  it('with policy Partial pins pods outside updateStrategy.selector and chooses others by the percentage partition', async () => {
    const partial = (partition?: number | string) =>
      latest({
        injectionStrategy: { revision: { revisionName: 'mesh-aaa', policy: 'Partial' } },
        updateStrategy: {
          selector: { matchLabels: { canary: 'true' } },
          ...(partition !== undefined ? { partition } : {}),
        },
      });
    expect((await injected(partial('100%'))).image).toBe('proxy:v1');
    expect((await injected(partial('30%'), { labels: { canary: 'true' }, random: 0.3 })).image).toBe(
      'proxy:v1',
    );
    expect((await injected(partial('30%'), { labels: { canary: 'true' }, random: 0.31 })).image).toBe(
      'proxy:v2',
    );
    expect((await injected(partial(3), { labels: { canary: 'true' }, random: 0 })).image).toBe('proxy:v2');
    expect((await injected(partial(), { labels: { canary: 'true' }, random: 0 })).image).toBe('proxy:v2');
    await expect(injected(partial('30'), { labels: { canary: 'true' } })).rejects.toThrow(
      'invalid type: string is not a percentage',
    );
  });

  it('injects the pinned revision whenever updates are paused, whatever the policy', async () => {
    const set = latest({
      injectionStrategy: { revision: { revisionName: 'mesh-aaa', policy: 'Partial' } },
      updateStrategy: { paused: true, selector: { matchLabels: { canary: 'true' } } },
    });
    expect((await injected(set, { labels: { canary: 'true' } })).image).toBe('proxy:v1');
  });

  it('refuses the pod with upstream’s NotFound message when the pinned revision is missing', async () => {
    const byName = latest({ injectionStrategy: { revision: { revisionName: 'mesh-zzz' } } });
    const byVersion = latest({ injectionStrategy: { revision: { customVersion: 'v9' } } });
    const handler = mutatePod(parseFeatureGates(''), {
      sidecarSets: lookups([byName], { default: {} }, history),
    });
    const review = {
      uid: 'u',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      operation: 'CREATE' as const,
      namespace: 'default',
      object: webPod([app]),
    };
    expect(await handler(review)).toMatchObject({
      allowed: false,
      status: { code: 500, message: 'controllerrevisions.apps "mesh-zzz" not found' },
    });
    await expect(injected(byVersion)).rejects.toThrow('ControllerRevision.apps "mesh" not found');
    // Never into existing pods: an UPDATE passes untouched.
    expect(await handler({ ...review, operation: 'UPDATE', oldObject: webPod([app]) })).toEqual({
      allowed: true,
    });
  });
});
