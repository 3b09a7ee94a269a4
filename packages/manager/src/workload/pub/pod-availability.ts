import { hasUnavailableLabel } from '@kruise/api';
import { jsonDeepEqual } from '@kruise/kube-compat';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { isDigestImage } from '../image-equality.ts';
import { type KubeletContainerHash, podUpdateNotCompleted } from '../inplaceupdate/completion.ts';
import { podContainerStatuses } from '../pod-containers.ts';
import { isRunningAndReady } from '../pod-state.ts';
import { SIDECAR_INJECTED_ENV, SIDECARSET_INJECTED_LIST_ANNOTATION } from '../sidecarset/keys.ts';
import { isSidecarUpdateCompleted } from '../sidecarset/update-completion.ts';

/**
 * Whether a PodUnavailableBudget counts a pod as available, and whether a change to a pod may
 * make it unavailable — one reading for the budget's controller, its pod webhooks and the
 * workloads that consult it before an in-place update.
 */

/**
 * Running and Ready, without an `unavailable-pod.kruise.io/*` label (upstream's pubcontrol
 * IsPodReady), and — beyond upstream — not being deleted: a terminating pod is down already, so a
 * second DELETE or an eviction of it takes nothing more (upstream takes a unit again once the
 * controller has dropped the pod's record, over-spending the budget).
 */
export function isPubPodReady(pod: Pod): boolean {
  return (
    !pod.metadata?.deletionTimestamp && isRunningAndReady(pod) && !hasUnavailableLabel(pod.metadata?.labels)
  );
}

/** The digest of an imageID when it names one (`repo@sha256:…`, docker's `docker-pullable://…`). */
function imageIdDigest(imageID: string | undefined): string | undefined {
  if (!imageID) return undefined;
  const at = imageID.lastIndexOf('@');
  return at === -1 ? undefined : imageID.slice(at + 1);
}

/**
 * Whether a digest-pinned container runs what its spec names: undefined when the runtime's imageID
 * cannot tell (a bare image ID, which is the config digest, not the manifest's), else whether the
 * manifest digests are the same. The repository is not compared: a runtime reports the first of
 * the image's repo digests, which may be another name of the same image (beyond upstream, #2570:
 * upstream compares repository and digest and so counts such pods unavailable forever).
 */
function digestContainerMatches(c: Container, imageID: string | undefined): boolean | undefined {
  const reported = imageIdDigest(imageID);
  if (reported === undefined) return undefined;
  const at = (c.image ?? '').lastIndexOf('@');
  return (c.image ?? '').slice(at + 1) === reported;
}

/** The sidecar containers SidecarSets injected (those with IS_INJECTED=true) and the SidecarSets' names. */
function injectedSidecars(pod: Pod): { sidecarSets: string[]; containers: Set<string> } {
  const list = pod.metadata?.annotations?.[SIDECARSET_INJECTED_LIST_ANNOTATION] ?? '';
  const containers = new Set<string>();
  for (const c of pod.spec?.containers ?? [])
    if ((c.env ?? []).some((e) => e?.name === SIDECAR_INJECTED_ENV && e.value === 'true'))
      containers.add(c.name);
  return { sidecarSets: list ? list.split(',') : [], containers };
}

/**
 * Whether the pod's containers run what its spec says (upstream's IsPodStateConsistent): when
 * every container is pinned by digest, each imageID must show that digest; otherwise the last
 * sidecar upgrade and the last in-place update must have completed. A digest-pinned container
 * whose runtime reports no repo digest is judged as a tagged one (beyond upstream, see
 * {@link digestContainerMatches}).
 */
export function isPubPodStateConsistent(pod: Pod, kubeletHash: KubeletContainerHash): boolean {
  const statuses = podContainerStatuses(pod);
  let allDigest = true;
  for (const c of pod.spec?.containers ?? []) {
    if (!isDigestImage(c.image ?? '')) {
      allDigest = false;
      continue;
    }
    const status = statuses.get(c.name);
    if (!status) return false;
    const matches = digestContainerMatches(c, status.imageID);
    if (matches === false) return false;
    if (matches === undefined) allDigest = false;
  }
  if (allDigest) return true;
  const { sidecarSets, containers } = injectedSidecars(pod);
  if (sidecarSets.length && containers.size && !isSidecarUpdateCompleted(pod, sidecarSets, containers))
    return false;
  return podUpdateNotCompleted(pod, { kubeletHash }) === undefined;
}

/** Whether the budget counts the pod as available now: active, ready and consistent. */
export function isPubPodAvailable(pod: Pod, kubeletHash: KubeletContainerHash): boolean {
  return isPubPodReady(pod) && isPubPodStateConsistent(pod, kubeletHash);
}

/** Whether an `unavailable-pod.kruise.io/*` label appears with this change. */
const unavailableLabelAdded = (oldPod: Pod, newPod: Pod) =>
  !hasUnavailableLabel(oldPod.metadata?.labels) && hasUnavailableLabel(newPod.metadata?.labels);

/**
 * Whether a pod update may make the pod unavailable (upstream's IsPodUnavailableChanged): its
 * spec changes, or an `unavailable-pod.kruise.io/*` label appears.
 */
export function podUnavailableChanged(oldPod: Pod, newPod: Pod): boolean {
  return !jsonDeepEqual(oldPod.spec ?? {}, newPod.spec ?? {}) || unavailableLabelAdded(oldPod, newPod);
}
