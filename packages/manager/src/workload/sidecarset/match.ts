import type { SidecarSet } from '@kruise/api';
import { labelSelectorIsEmpty, labelSelectorMatches } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** The labels of a namespace by name, or undefined when the namespace is not known. */
export type NamespaceLabels = (namespace: string) => Record<string, string> | undefined;

/**
 * Whether a SidecarSet selects the pod (upstream's PodMatchedSidecarSet): its namespaceSelector,
 * when set, matches the labels of the pod's namespace (a namespace that cannot be read does not
 * match), and its selector is non-empty and matches the pod's labels.
 */
export function sidecarSetMatchesPod(
  sidecarSet: SidecarSet,
  pod: Pod,
  namespaceLabels: NamespaceLabels,
): boolean {
  const spec = sidecarSet.spec ?? {};
  if (spec.namespaceSelector) {
    const labels = namespaceLabels(pod.metadata?.namespace || 'default');
    if (!labels || !labelSelectorMatches(spec.namespaceSelector, labels)) return false;
  }
  if (!spec.selector || labelSelectorIsEmpty(spec.selector)) return false;
  return labelSelectorMatches(spec.selector, pod.metadata?.labels);
}
