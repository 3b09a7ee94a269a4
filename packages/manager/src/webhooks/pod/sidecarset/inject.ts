import type { FeatureGates, SidecarSet } from '@kruise/api';
import { goMarshal } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { SIDECARSET_WORKING_HOTUPGRADE_CONTAINER_ANNOTATION } from '../../../workload/sidecarset/keys.ts';
import { sidecarSetMatchesPod } from '../../../workload/sidecarset/match.ts';
import { appendNew, orNone } from './append-new.ts';
import { buildSidecars } from './build.ts';
import { checkHashAnnotations, writeInjectionAnnotations } from './hash-annotations.ts';
import type { SidecarSetLookups } from './lookups.ts';
import { mergeImagePullSecrets, mergeSidecarContainers } from './merge.ts';
import { patchMetadata } from './metadata.ts';
import { chooseRevision } from './revision-choice.ts';

/** What the SidecarSet step needs besides the pod. */
export interface SidecarSetInjection {
  lookups: SidecarSetLookups;
  gates: FeatureGates;
  /** Draws in [0, 1) for Partial injection (Math.random unless given). */
  random?: () => number;
  /** The time written into the hash annotations (now unless given). */
  now?: () => Date;
}

/** Orders containers by name (stable). */
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** controller.IsPodActive: not Succeeded, not Failed, not being deleted. */
const isActive = (pod: Pod) =>
  pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed' && !pod.metadata?.deletionTimestamp;

/** The SidecarSets that inject into the pod, each at the revision it injects (upstream's order: by name). */
async function matchedSidecarSets(pod: Pod, deps: SidecarSetInjection): Promise<SidecarSet[]> {
  const all = (await deps.lookups.sidecarSets())
    .filter((s) => !s.spec?.injectionStrategy?.paused)
    .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  const namespace = pod.metadata?.namespace || 'default';
  const labels = all.some((s) => s.spec?.namespaceSelector)
    ? await deps.lookups.namespaceLabels(namespace)
    : undefined;
  const matched: SidecarSet[] = [];
  for (const s of all) {
    if (!sidecarSetMatchesPod(s, pod, () => labels)) continue;
    matched.push(await chooseRevision(s, pod, deps.lookups, deps.random ?? Math.random));
  }
  return matched;
}

/**
 * The SidecarSet step of `mpod.kb.io` on pod CREATE (upstream's sidecarsetMutatingPod): every
 * active pod gets the sidecars of the SidecarSets selecting it (injection not paused), each at its
 * chosen revision: their patchPodMetadata, init containers sorted by name after the pod's, containers
 * before or after the app containers (sorted by name under gate EnableSortSidecarContainerByName),
 * a same-named container replaced, volumes and imagePullSecrets merged, the hot-upgrade pairs and
 * the hash, hash-without-image and injected-list annotations. Returns whether the pod changed.
 * @throws Error in upstream's words when a pinned revision is missing or a policy cannot be applied.
 */
export async function injectSidecarSets(pod: Pod, deps: SidecarSetInjection): Promise<boolean> {
  if (!isActive(pod)) return false;
  const matched = await matchedSidecarSets(pod, deps);
  if (matched.length === 0) return false;
  pod.metadata ??= {};
  pod.metadata.annotations ??= {};
  const annotations = pod.metadata.annotations;
  const patched = patchMetadata(annotations, matched);
  checkHashAnnotations(pod);
  const built = buildSidecars(pod, matched);
  if (built.containers.length === 0 && built.initContainers.length === 0) return patched;
  pod.spec ??= { containers: [] };
  const spec = pod.spec;
  const inits = [...built.initContainers].sort(byName);
  spec.initContainers = orNone(mergeSidecarContainers(spec.initContainers, inits));
  const containers = deps.gates.enabled('EnableSortSidecarContainerByName')
    ? [...built.containers].sort(byName)
    : built.containers;
  spec.containers = mergeSidecarContainers(spec.containers, containers);
  spec.volumes = orNone(appendNew(spec.volumes, built.volumes, (v) => v.name));
  spec.imagePullSecrets = orNone(mergeImagePullSecrets(spec.imagePullSecrets, built.imagePullSecrets));
  Object.assign(annotations, built.annotations);
  if (Object.keys(built.annotations).length > 0)
    annotations[SIDECARSET_WORKING_HOTUPGRADE_CONTAINER_ANNOTATION] = goMarshal(built.working, true);
  writeInjectionAnnotations(annotations, matched, built.injecting, (deps.now ?? (() => new Date()))());
  return true;
}
