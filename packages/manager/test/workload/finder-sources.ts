import { labelSelectorMatches } from '@kruise/kube-compat';
import { type KubeObject, NoKindMatchError, splitApiVersion } from '@kruise/runtime';
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  type FinderSources,
  isKnownWorkload,
  type ObjectRef,
} from '../../src/workload/controllerfinder/index.ts';

/** What an in-memory cluster holds for a finder. */
export interface FinderWorld {
  /** Every object, each with its apiVersion and kind. */
  objects: KubeObject[];
  /** Scale subresources: of kinds that have one, by group, kind, namespace and name. */
  scales?: { apiVersion: string; kind: string; scale: Scale }[];
  /** The kruise-configuration ConfigMap's data. */
  configuration?: Record<string, string>;
  /** `group/Kind`s the API does not serve. */
  unserved?: string[];
}

const groupOf = (apiVersion: string | undefined) => splitApiVersion(apiVersion ?? '')?.group;

const at = (namespace: string, name?: string) => (o: { metadata?: { namespace?: string; name?: string } }) =>
  o.metadata?.namespace === namespace && (name === undefined || o.metadata?.name === name);

const sameGroupKind = (o: { apiVersion?: string; kind?: string }, ref: ObjectRef) =>
  groupOf(o.apiVersion) === groupOf(ref.apiVersion) && o.kind === ref.kind;

const ownedBy = (uid: string) => (o: KubeObject) =>
  (o.metadata?.ownerReferences ?? []).some((r: { uid: string }) => r.uid === uid);

/** Sources over a fixed world, recording what was read from the "API" (scale, object, configuration). */
export function memorySources(world: FinderWorld): FinderSources & { apiReads: string[] } {
  const apiReads: string[] = [];
  const served = (ref: ObjectRef) => {
    if (world.unserved?.includes(`${groupOf(ref.apiVersion)}/${ref.kind}`))
      throw new NoKindMatchError(ref.apiVersion, ref.kind);
  };
  const ofKind = (kind: string) => world.objects.filter((o) => o.kind === kind);
  return {
    apiReads,
    async workload(known, namespace, name) {
      return world.objects.find(
        (o) => isKnownWorkload(o.apiVersion ?? '', o.kind ?? '', known) && at(namespace, name)(o),
      );
    },
    async replicaSetsOwnedBy(namespace, ownerUid) {
      return ofKind('ReplicaSet').filter(at(namespace)).filter(ownedBy(ownerUid)) as ReplicaSet[];
    },
    async podsOwnedBy(namespace, ownerUid) {
      return ofKind('Pod').filter(at(namespace)).filter(ownedBy(ownerUid)) as Pod[];
    },
    async podsMatching(namespace, selector) {
      return ofKind('Pod')
        .filter(at(namespace))
        .filter((p) => labelSelectorMatches(selector, p.metadata?.labels)) as Pod[];
    },
    async kruiseConfiguration() {
      apiReads.push('configuration');
      return world.configuration;
    },
    async scale(ref, namespace) {
      apiReads.push(`scale ${ref.kind}/${ref.name}`);
      served(ref);
      return world.scales?.find((s) => sameGroupKind(s, ref) && at(namespace, ref.name)(s.scale))?.scale;
    },
    async object(ref, namespace) {
      apiReads.push(`object ${ref.kind}/${ref.name}`);
      served(ref);
      return world.objects.find((o) => sameGroupKind(o, ref) && at(namespace, ref.name)(o));
    },
  };
}

/** An object of a kind, in namespace `ns`, named and with uid `uid-<name>`. */
export function obj(
  apiVersion: string,
  kind: string,
  name: string,
  extra: Record<string, any> = {},
): KubeObject {
  const { metadata, ...rest } = extra;
  return {
    apiVersion,
    kind,
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...metadata },
    ...rest,
  };
}

/** An owner reference (a controller one unless `controller` is false) to an object made by {@link obj}. */
export function ownerRef(owner: KubeObject, controller = true) {
  return {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata!.name!,
    uid: owner.metadata!.uid!,
    ...(controller ? { controller: true } : {}),
  };
}

/** A pod controlled by `owner` (none: an orphan), with a phase and labels. */
export function podOf(
  name: string,
  owner: KubeObject | undefined,
  extra: { phase?: string; labels?: Record<string, string>; deleting?: boolean; namespace?: string } = {},
): KubeObject {
  return obj('v1', 'Pod', name, {
    metadata: {
      ...(owner ? { ownerReferences: [ownerRef(owner)] } : {}),
      ...(extra.labels ? { labels: extra.labels } : {}),
      ...(extra.deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}),
      ...(extra.namespace ? { namespace: extra.namespace } : {}),
    },
    status: { phase: extra.phase ?? 'Running' },
  });
}
