import { KruiseResources } from '@kruise/api/kinds';
import type { ResourceRef } from '@kruise/kube-compat/resource-ref';
import type { KubeObject } from '@kruise/runtime/kube/client';
import { cloneSetStatus, type RolloutStatus } from './status.ts';

/**
 * A Kruise workload kind the commands handle. Adding a kind (Advanced StatefulSet, Advanced
 * DaemonSet) is one more row in {@link WORKLOAD_KINDS}; a command reads what differs between kinds
 * from here instead of switching on the kind.
 */
export interface WorkloadKind {
  /** The API kind, e.g. `CloneSet`. */
  kind: string;
  resource: ResourceRef;
  /** The names that select it on the command line (singular, plural, short names, qualified). */
  names: readonly string[];
  /** Whether it has a `spec.replicas` served through the `scale` subresource. */
  scalable: boolean;
  /** JSON path segments of the pod template. */
  templatePath: readonly string[];
  /** JSON path segments of the `paused` switch of its update strategy. */
  pausedPath?: readonly string[];
  /** `rollout status`'s reading of an object of this kind. */
  rolloutStatus: (obj: KubeObject) => RolloutStatus;
}

/** The qualified name kubectl prints for a resource, e.g. `cloneset.apps.kruise.io`. */
export const qualifiedName = (k: WorkloadKind) =>
  k.resource.group ? `${k.kind.toLowerCase()}.${k.resource.group}` : k.kind.toLowerCase();

function namesOf(resource: ResourceRef, shortNames: readonly string[]): string[] {
  const singular = resource.kind.toLowerCase();
  const names = [singular, resource.plural, ...shortNames];
  const qualified = [singular, resource.plural].flatMap((n) => [
    `${n}.${resource.group}`,
    `${n}.${resource.version}.${resource.group}`,
  ]);
  return [...names, ...qualified];
}

/** The workload kinds of this project, as the commands see them. */
export const WORKLOAD_KINDS: readonly WorkloadKind[] = [
  {
    kind: 'CloneSet',
    resource: KruiseResources.CloneSet,
    names: namesOf(KruiseResources.CloneSet, ['clone']),
    scalable: true,
    templatePath: ['spec', 'template'],
    pausedPath: ['spec', 'updateStrategy', 'paused'],
    rolloutStatus: cloneSetStatus,
  },
];

/** The kind a command-line type names (case-insensitive, as kubectl's RESTMapper), or undefined. */
export function kindNamed(type: string): WorkloadKind | undefined {
  const wanted = type.toLowerCase();
  return WORKLOAD_KINDS.find((k) => k.names.includes(wanted));
}
