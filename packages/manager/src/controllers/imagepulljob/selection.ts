import type { ImagePullJob, NodeImage } from '@kruise/api';
import { labelSelectorMatches } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** Whether a pod is active and scheduled (podSelector jobs pull on its node). */
export const activeScheduledPod = (pod: Pod) =>
  Boolean(pod.spec?.nodeName) &&
  !pod.metadata?.deletionTimestamp &&
  !['Succeeded', 'Failed'].includes(pod.status?.phase ?? '');

/**
 * The NodeImages a job targets: by podSelector (nodes of active, scheduled pods in its namespace),
 * by names, by label selector, or all of them (fake NodeImages included) when there is no selector.
 */
export function selectNodeImages(
  job: ImagePullJob,
  nodeImages: Map<string, NodeImage>,
  pods: () => Pod[],
): NodeImage[] {
  const spec = job.spec;
  if (spec?.podSelector) {
    const nodes = new Set<string>();
    for (const pod of pods()) {
      if (pod.metadata?.namespace !== job.metadata?.namespace || !activeScheduledPod(pod)) continue;
      if (pod.spec?.nodeName && labelSelectorMatches(spec.podSelector, pod.metadata?.labels))
        nodes.add(pod.spec.nodeName);
    }
    return [...nodes].flatMap((n) => (nodeImages.has(n) ? [nodeImages.get(n)!] : []));
  }
  const selector = spec?.selector;
  if (!selector) return [...nodeImages.values()];
  if (selector.names?.length)
    return selector.names.flatMap((n) => (nodeImages.has(n) ? [nodeImages.get(n)!] : []));
  return [...nodeImages.values()].filter((ni) => labelSelectorMatches(selector, ni.metadata?.labels));
}
