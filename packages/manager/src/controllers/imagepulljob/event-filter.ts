import type { ImagePullJob, NodeImage } from '@kruise/api';
import { labelSelectorMatches } from '@kruise/kube-compat';
import type { Pod, Secret } from 'kubernetes-types/core/v1.js';
import { imageTagKey } from './job-image.ts';
import { activeScheduledPod } from './selection.ts';

/**
 * The `name:tag` pairs whose spec tag or status tag differ between two versions of a NodeImage:
 * only jobs on those tags need to look again (upstream PR #2483; v1.9 woke every job on the image).
 */
export function changedImageTags(oldNi: NodeImage | undefined, newNi: NodeImage | undefined): Set<string> {
  const changed = new Set<string>();
  const index = (ni: NodeImage | undefined) => {
    const m = new Map<string, string>();
    for (const [name, image] of Object.entries(ni?.spec?.images ?? {})) {
      const secrets = JSON.stringify(image.pullSecrets ?? []);
      for (const t of image.tags ?? []) m.set(imageTagKey(name, t.tag), `s${JSON.stringify(t)}${secrets}`);
    }
    for (const [name, image] of Object.entries(ni?.status?.imageStatuses ?? {})) {
      for (const t of image.tags ?? []) {
        const key = imageTagKey(name, t.tag);
        m.set(key, `${m.get(key) ?? ''}|${JSON.stringify(t)}`);
      }
    }
    return m;
  };
  const a = index(oldNi);
  const b = index(newNi);
  for (const [k, v] of a) if (b.get(k) !== v) changed.add(k);
  for (const k of b.keys()) if (!a.has(k)) changed.add(k);
  return changed;
}

/** The active jobs whose label selector (not a names list) matches one version of a NodeImage's labels and not the other. */
export function jobsSelectingChangedLabels(
  active: ImagePullJob[],
  oldNi: NodeImage,
  newNi: NodeImage,
): ImagePullJob[] {
  if (JSON.stringify(oldNi.metadata?.labels ?? {}) === JSON.stringify(newNi.metadata?.labels ?? {}))
    return [];
  return active.filter((job) => {
    const sel = job.spec?.selector;
    return (
      sel &&
      !sel.names?.length &&
      labelSelectorMatches(sel, oldNi.metadata?.labels) !== labelSelectorMatches(sel, newNi.metadata?.labels)
    );
  });
}

/**
 * The active podSelector jobs a pod event concerns (`oldPod` undefined for an add or delete): none
 * when node, labels and being active and scheduled are unchanged; else those in the pod's namespace
 * whose selector matches the pod before or after.
 */
export function jobsSelectingPod(active: ImagePullJob[], oldPod: Pod | undefined, pod: Pod): ImagePullJob[] {
  if (
    oldPod &&
    oldPod.spec?.nodeName === pod.spec?.nodeName &&
    JSON.stringify(oldPod.metadata?.labels) === JSON.stringify(pod.metadata?.labels) &&
    activeScheduledPod(oldPod) === activeScheduledPod(pod)
  )
    return [];
  return active.filter(
    (job) =>
      job.spec?.podSelector &&
      job.metadata?.namespace === pod.metadata?.namespace &&
      (labelSelectorMatches(job.spec.podSelector, pod.metadata?.labels) ||
        (oldPod && labelSelectorMatches(job.spec.podSelector, oldPod.metadata?.labels))),
  );
}

/** The active jobs pulling with a secret whose data changed. */
export function jobsUsingChangedSecret(
  active: ImagePullJob[],
  oldSecret: Secret,
  secret: Secret,
): ImagePullJob[] {
  if (JSON.stringify(oldSecret.data ?? {}) === JSON.stringify(secret.data ?? {})) return [];
  return active.filter(
    (job) =>
      job.metadata?.namespace === secret.metadata?.namespace &&
      job.spec?.pullSecrets?.includes(secret.metadata?.name ?? ''),
  );
}
