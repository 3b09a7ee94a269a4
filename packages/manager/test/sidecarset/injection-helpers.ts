import { parseFeatureGates, type SidecarSet } from '@kruise/api';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { injectSidecarSets } from '../../src/webhooks/pod/sidecarset/inject.ts';
import type { SidecarSetLookups } from '../../src/webhooks/pod/sidecarset/lookups.ts';

/** Fixed time of the hash annotations in these tests. */
export const NOW = new Date('2026-01-02T03:04:05.678Z');

/** In-memory lookups: the SidecarSets, namespaces by name, revisions in the Kruise namespace. */
export function lookups(
  sets: SidecarSet[],
  namespaces: Record<string, Record<string, string>> = { default: {} },
  revisions: ControllerRevision[] = [],
): SidecarSetLookups {
  return {
    sidecarSets: async () => sets,
    namespaceLabels: async (name) => namespaces[name],
    revisions: async (set) =>
      revisions.filter((r) => r.metadata?.labels?.['kruise.io/sidecarset-name'] === set),
    revision: async (name) => revisions.find((r) => r.metadata?.name === name),
  };
}

/** A SidecarSet selecting `app: web` with these spec fields. */
export function sidecarSet(name: string, spec: SidecarSet['spec'] = {}, hash = `${name}-hash`): SidecarSet {
  return {
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'SidecarSet',
    metadata: {
      name,
      annotations: {
        'kruise.io/sidecarset-hash': hash,
        'kruise.io/sidecarset-hash-without-image': `${hash}-noimage`,
      },
    },
    spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
    status: { latestRevision: `${name}-rev1` } as SidecarSet['status'],
  };
}

/** A pod labelled `app: web` in `default` with these containers. */
export function webPod(containers: Container[], extra: Partial<Pod> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    ...extra,
    metadata: { name: 'web-0', namespace: 'default', labels: { app: 'web' }, ...extra.metadata },
    spec: { ...extra.spec, containers },
  };
}

/** Injects into (a copy of) the pod; returns it and whether it changed. */
export async function inject(
  pod: Pod,
  sets: SidecarSet[] | SidecarSetLookups,
  opts: { gates?: string; random?: () => number } = {},
): Promise<{ pod: Pod; changed: boolean }> {
  const copy = structuredClone(pod);
  const changed = await injectSidecarSets(copy, {
    lookups: Array.isArray(sets) ? lookups(sets) : sets,
    gates: parseFeatureGates(opts.gates ?? ''),
    random: opts.random ?? (() => 0.5),
    now: () => NOW,
  });
  return { pod: copy, changed };
}

/** Container names in order. */
export const names = (cs: { name: string }[] | undefined) => (cs ?? []).map((c) => c.name);
