import { KruiseResources } from '@kruise/api/kinds';
import type { ResourceRef } from '@kruise/kube-compat/resource-ref';
import type { KubeObject } from '@kruise/runtime/kube/client';
import {
  advancedDaemonSetStatus,
  advancedStatefulSetStatus,
  cloneSetStatus,
  type RolloutStatus,
} from './status.ts';

/**
 * A Kruise workload kind the commands handle. Adding a kind is one more row in
 * {@link WORKLOAD_KINDS}; a command reads what differs between kinds from here instead of
 * switching on the kind.
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

/**
 * The names kubectl's RESTMapper resolves to a custom resource: its singular, plural and short
 * names (`bare`: those that are not also a built-in resource's), and each of singular, plural and
 * short names qualified as `NAME.GROUP` and `NAME.VERSION.GROUP` for every served version.
 */
function namesOf(
  resource: ResourceRef,
  shortNames: readonly string[],
  o: { bare?: readonly string[]; versions?: readonly string[] } = {},
): string[] {
  const singular = resource.kind.toLowerCase();
  const all = [singular, resource.plural, ...shortNames];
  const qualified = all.flatMap((n) => [
    `${n}.${resource.group}`,
    ...(o.versions ?? [resource.version]).map((v) => `${n}.${v}.${resource.group}`),
  ]);
  return [...(o.bare ?? all), ...qualified];
}

/** kubectl's names of a built-in apps/v1 kind: bare, `.apps` and `.v1.apps`. */
const builtInNames = (names: string[]) => names.flatMap((n) => [n, `${n}.apps`, `${n}.v1.apps`]);

/**
 * The built-in apps/v1 kinds whose names the Advanced twins share: kubectl (and so kruise-tools)
 * prefers the built-in group, so `sts`, `statefulset(s)`, `ds` and `daemonset(s)` mean the built-in
 * kinds, which this plugin does not handle; each says how to name its Advanced twin instead.
 */
const BUILT_IN_TWINS = [
  {
    names: builtInNames(['statefulset', 'statefulsets', 'sts']),
    hint: 'is the built-in StatefulSet (apps/v1), which kubectl kruise does not handle (use kubectl); an Advanced StatefulSet is "asts" or "statefulsets.apps.kruise.io"',
  },
  {
    names: builtInNames(['daemonset', 'daemonsets', 'ds']),
    hint: 'is the built-in DaemonSet (apps/v1), which kubectl kruise does not handle (use kubectl); an Advanced DaemonSet is "ads" or "daemonsets.apps.kruise.io"',
  },
];

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
  {
    kind: 'StatefulSet',
    resource: KruiseResources.StatefulSet,
    names: namesOf(KruiseResources.StatefulSet, ['sts', 'asts'], {
      bare: ['asts'],
      versions: ['v1beta1', 'v1alpha1'],
    }),
    scalable: true,
    templatePath: ['spec', 'template'],
    pausedPath: ['spec', 'updateStrategy', 'rollingUpdate', 'paused'],
    rolloutStatus: advancedStatefulSetStatus,
  },
  {
    kind: 'DaemonSet',
    resource: KruiseResources.DaemonSet,
    names: namesOf(KruiseResources.DaemonSet, ['daemon', 'ads'], {
      bare: ['daemon', 'ads'],
      versions: ['v1beta1', 'v1alpha1'],
    }),
    scalable: false,
    templatePath: ['spec', 'template'],
    pausedPath: ['spec', 'updateStrategy', 'rollingUpdate', 'paused'],
    rolloutStatus: advancedDaemonSetStatus,
  },
];

/**
 * The resource types as kubectl's `set` help lists them. Plain `statefulset (sts)` and
 * `daemonset (ds)` are the built-in kinds, which kubectl handles; the Advanced ones are `asts`
 * (`statefulsets.apps.kruise.io`) and `ads` (`daemonsets.apps.kruise.io`).
 */
export const POSSIBLE_RESOURCES = `Possible resources include (case insensitive):

  cloneset (clone), statefulset.apps.kruise.io (asts), daemonset.apps.kruise.io (ads)`;

/** The kind a command-line type names (case-insensitive, as kubectl's RESTMapper), or undefined. */
export function kindNamed(type: string): WorkloadKind | undefined {
  const wanted = type.toLowerCase();
  return WORKLOAD_KINDS.find((k) => k.names.includes(wanted));
}

/** Whether a command-line type names a built-in workload this plugin leaves to kubectl. */
export const namesBuiltInWorkload = (type: string) =>
  BUILT_IN_TWINS.some((t) => t.names.includes(type.toLowerCase()));

/**
 * The kind a command-line type names.
 * @throws Error with kubectl's words for an unknown type, and for a built-in kind's name (`sts`,
 * `ds` …) how to name its Advanced twin instead.
 */
export function requireKind(type: string): WorkloadKind {
  const kind = kindNamed(type);
  if (kind) return kind;
  const twin = BUILT_IN_TWINS.find((t) => t.names.includes(type.toLowerCase()));
  if (twin) throw new Error(`"${type}" ${twin.hint}`);
  throw new Error(`the server doesn't have a resource type "${type}"`);
}

/** The kind of an object read from a file: its `kind` in its apiVersion's group, or undefined. */
export function kindOfObject(obj: { apiVersion?: string; kind?: string }): WorkloadKind | undefined {
  const group = String(obj.apiVersion ?? '').split('/')[0];
  return WORKLOAD_KINDS.find((k) => k.kind === obj.kind && k.resource.group === group);
}
