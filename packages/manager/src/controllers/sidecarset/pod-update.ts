import type { SidecarSet } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podContainerStatuses, podContainers } from '../../workload/pod-containers.ts';
import {
  hotUpgradeContainers,
  hotUpgradeNames,
  isHotUpgrade,
  patchPodMetadata,
  SIDECARSET_WORKING_HOTUPGRADE_CONTAINER_ANNOTATION,
  versionAltAnnotation,
  versionAnnotation,
  workingHotUpgradeContainers,
  writePodSidecarSetHash,
} from '../../workload/sidecarset/index.ts';
import { isPodStateConsistent, nativeSidecars } from './pod-state.ts';
import { recordUpdateState } from './update-state.ts';

/**
 * The copy of hot sidecar `name` to put the new image in (upstream's findContainerToHotUpgrade):
 * the one at the empty image, else the one not ready, else the older one; and the other copy.
 */
function copyToUpgrade(sidecarSet: SidecarSet, name: string, emptyImage: string, pod: Pod): [string, string] {
  const [one, two] = hotUpgradeNames(name);
  const containers = podContainers(pod);
  if (containers.get(one)?.image === emptyImage) return [one, two];
  if (containers.get(two)?.image === emptyImage) return [two, one];
  const statuses = podContainerStatuses(pod);
  const ready = (c: string) =>
    statuses.get(c)?.ready === true && isPodStateConsistent(sidecarSet, pod, new Set([c]));
  const r1 = ready(one);
  const r2 = ready(two);
  if (r1 && !r2) return [two, one];
  if (!r1 && r2) return [one, two];
  const { working, other } = hotUpgradeContainers(name, pod);
  return [other, working];
}

/**
 * Puts the SidecarSet's images into the pod (upstream's updatePodSidecarContainer): each cold
 * sidecar's image, (beyond upstream) each native-sidecar init container's, and for each hot
 * sidecar the copy to upgrade with the version annotations and the working copy swapped; then the
 * pod's hash annotation, the imageIDs before the update, and Overwrite / MergePatchJson metadata.
 * Returns the containers changed. Mutates `pod`.
 * @throws Error when a MergePatchJson value or the annotation it patches is not JSON.
 */
export function applySidecarImages(
  sidecarSet: SidecarSet,
  pod: Pod,
  revision: string,
  now = Date.now(),
): string[] {
  const containers = podContainers(pod);
  const annotations = { ...(pod.metadata?.annotations ?? {}) };
  const changed: string[] = [];
  const version = sidecarSet.metadata?.resourceVersion ?? '';
  for (const sidecar of sidecarSet.spec?.containers ?? []) {
    if (!isHotUpgrade(sidecar)) {
      const c = containers.get(sidecar.name);
      if (c && c.image !== sidecar.image) {
        c.image = sidecar.image;
        changed.push(c.name);
      }
      continue;
    }
    const [target, older] = copyToUpgrade(
      sidecarSet,
      sidecar.name,
      sidecar.upgradeStrategy?.hotUpgradeEmptyImage ?? '',
      pod,
    );
    const c = containers.get(target);
    if (!c || containers.get(older)?.image === sidecar.image) continue;
    c.image = sidecar.image;
    changed.push(target);
    const working = { ...workingHotUpgradeContainers(pod), [sidecar.name]: target };
    annotations[SIDECARSET_WORKING_HOTUPGRADE_CONTAINER_ANNOTATION] = JSON.stringify(
      Object.fromEntries(
        Object.keys(working)
          .sort()
          .map((k) => [k, working[k]]),
      ),
    );
    annotations[versionAnnotation(target)] = version;
    annotations[versionAltAnnotation(target)] = annotations[versionAnnotation(older)] ?? '';
    annotations[versionAltAnnotation(older)] = version;
  }
  for (const sidecar of nativeSidecars(sidecarSet)) {
    const c = containers.get(sidecar.name);
    if (c && c.image !== sidecar.image) {
      c.image = sidecar.image;
      changed.push(c.name);
    }
  }
  writePodSidecarSetHash(annotations, sidecarSet, { revision, now: new Date(now) });
  pod.metadata = { ...pod.metadata, annotations };
  recordUpdateState(sidecarSet, pod, changed, now);
  patchPodMetadata(pod.metadata.annotations!, sidecarSet.spec?.patchPodMetadata);
  return changed;
}

/** Whether any hot sidecar's idle copy is not at the empty image (upstream's isPodSidecarInHotUpgrading). */
export function inHotUpgrade(sidecarSet: SidecarSet, pod: Pod): boolean {
  const containers = podContainers(pod);
  return (sidecarSet.spec?.containers ?? []).some(
    (s) =>
      isHotUpgrade(s) &&
      containers.get(hotUpgradeContainers(s.name, pod).other)?.image !==
        s.upgradeStrategy?.hotUpgradeEmptyImage,
  );
}

/**
 * Whether the pod's containers but the idle hot copies are ready (upstream's isHotUpgradingReady).
 */
export function hotUpgradeReady(sidecarSet: SidecarSet, pod: Pod): boolean {
  if (
    pod.status?.phase === 'Running' &&
    pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
  )
    return true;
  const idle = new Set(
    (sidecarSet.spec?.containers ?? [])
      .filter(isHotUpgrade)
      .map((s) => hotUpgradeContainers(s.name, pod).other),
  );
  return (pod.status?.containerStatuses ?? []).every((s) => idle.has(s.name) || s.ready);
}

/**
 * The flip after a hot upgrade (upstream's flipPodSidecarContainerDo): each hot sidecar's older copy
 * goes back to the empty image, its version and its sibling's alt version to "0", and the imageIDs
 * before the change are recorded. Returns the containers changed. Mutates `pod`.
 */
export function flipHotUpgrade(sidecarSet: SidecarSet, pod: Pod, now = Date.now()): string[] {
  const containers = podContainers(pod);
  const annotations = { ...(pod.metadata?.annotations ?? {}) };
  const changed: string[] = [];
  for (const s of sidecarSet.spec?.containers ?? []) {
    if (!isHotUpgrade(s)) continue;
    const empty = s.upgradeStrategy?.hotUpgradeEmptyImage ?? '';
    const { working, other } = hotUpgradeContainers(s.name, pod);
    const c = containers.get(other);
    if (!c || c.image === empty) continue;
    c.image = empty;
    changed.push(other);
    annotations[versionAnnotation(other)] = '0';
    annotations[versionAltAnnotation(working)] = '0';
  }
  pod.metadata = { ...pod.metadata, annotations };
  recordUpdateState(sidecarSet, pod, changed, now);
  return changed;
}
