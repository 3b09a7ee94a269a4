import type { SidecarSet } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isDigestImage as isDigest, sameImage } from '../../workload/image-equality.ts';
import { podContainerStatuses, podContainers } from '../../workload/pod-containers.ts';
import { isRunningAndReady } from '../../workload/pod-state.ts';
import {
  hotUpgradeContainers,
  hotUpgradeNames,
  isHotUpgrade,
  isNativeSidecar,
  podSidecarSetHashWithoutImage,
  SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION,
  workingHotUpgradeContainers,
} from '../../workload/sidecarset/index.ts';
import { isSidecarUpdateCompleted } from '../../workload/sidecarset/update-completion.ts';

/**
 * The pod containers a SidecarSet's sidecars run as (upstream's GetSidecarContainersInPod): each
 * cold sidecar by name, both copies of each hot one, and (beyond upstream) its native-sidecar init
 * containers, which roll like cold sidecars.
 */
export function sidecarContainersInPod(sidecarSet: SidecarSet): Set<string> {
  const names = new Set<string>();
  for (const c of sidecarSet.spec?.containers ?? []) {
    if (isHotUpgrade(c)) for (const n of hotUpgradeNames(c.name)) names.add(n);
    else names.add(c.name);
  }
  for (const c of nativeSidecars(sidecarSet)) names.add(c.name);
  return names;
}

/** The SidecarSet's init containers with `restartPolicy: Always` (native sidecars). */
export const nativeSidecars = (sidecarSet: SidecarSet) =>
  (sidecarSet.spec?.initContainers ?? []).filter((c) => isNativeSidecar(c));

/**
 * Whether the pod still has the containers the SidecarSet injected, as its upgrade types expect
 * (upstream's IsPodConsistentWithSidecarSet): each cold sidecar by name, each hot one as both
 * copies with a working-container record.
 */
export function isPodConsistentWithSidecarSet(pod: Pod, sidecarSet: SidecarSet): boolean {
  const containers = podContainers(pod);
  const working = workingHotUpgradeContainers(pod);
  for (const c of sidecarSet.spec?.containers ?? []) {
    if (isHotUpgrade(c)) {
      const [one, two] = hotUpgradeNames(c.name);
      if (!(c.name in working) || !containers.has(one) || !containers.has(two)) return false;
    } else if (!containers.has(c.name)) return false;
  }
  return true;
}

/**
 * Whether the pod's sidecar containers (`names`, default all of the SidecarSet's) run what their
 * spec says (upstream's IsPodStateConsistent): every container reports a status; digest images
 * match their imageIDs, otherwise the last in-place update has completed.
 */
export function isPodStateConsistent(sidecarSet: SidecarSet, pod: Pod, names?: Set<string>): boolean {
  if ((pod.spec?.containers ?? []).length !== (pod.status?.containerStatuses ?? []).length) return false;
  const sidecars = names?.size ? names : sidecarContainersInPod(sidecarSet);
  const statuses = podContainerStatuses(pod);
  let allDigest = true;
  for (const c of podContainers(pod).values()) {
    if (!sidecars.has(c.name)) continue;
    if (!isDigest(c.image ?? '')) {
      allDigest = false;
      break;
    }
    const imageID = statuses.get(c.name)?.imageID;
    if (imageID === undefined || !sameImage(c.image ?? '', imageID)) return false;
  }
  if (allDigest) return true;
  return isSidecarUpdateCompleted(pod, [sidecarSet.metadata?.name ?? ''], sidecars);
}

/**
 * Whether the pod counts as ready for the SidecarSet (upstream's IsPodReady): Running and Ready,
 * and each hot sidecar's idle copy back at the empty image.
 */
export function isPodReadyForSidecarSet(sidecarSet: SidecarSet, pod: Pod): boolean {
  const containers = podContainers(pod);
  for (const c of sidecarSet.spec?.containers ?? []) {
    if (!isHotUpgrade(c)) continue;
    const empty = c.upgradeStrategy?.hotUpgradeEmptyImage ?? '';
    const { other } = hotUpgradeContainers(c.name, pod);
    const image = containers.get(other)?.image;
    if (empty !== '' && image !== undefined && image !== empty) return false;
  }
  return isRunningAndReady(pod);
}

/**
 * Whether the SidecarSet can upgrade the pod in place and whether the pod is ready for it now
 * (upstream's IsSidecarSetUpgradable): only when the pod's hash-without-image is the SidecarSet's,
 * since only images may change; a ready sidecar whose last upgrade has not completed makes it wait.
 */
export function sidecarSetUpgradable(
  sidecarSet: SidecarSet,
  pod: Pod,
): { canUpgrade: boolean; consistent: boolean } {
  const own = sidecarSet.metadata?.annotations?.[SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION] ?? '';
  if (podSidecarSetHashWithoutImage(pod, sidecarSet.metadata?.name ?? '') !== own)
    return { canUpgrade: false, consistent: false };
  const statuses = podContainerStatuses(pod);
  for (const name of [...sidecarContainersInPod(sidecarSet)].sort())
    if (statuses.get(name)?.ready && !isPodStateConsistent(sidecarSet, pod, new Set([name])))
      return { canUpgrade: true, consistent: false };
  return { canUpgrade: true, consistent: true };
}
