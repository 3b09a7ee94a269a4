import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';

/**
 * A new pod from a workload's template (Kubernetes' GetPodFromTemplate): the template's labels,
 * annotations, finalizers and spec (copied), named `<owner>-<random>` through `generateName`, in
 * `namespace`, controlled by `owner`.
 */
export function podFromTemplate(template: PodTemplateSpec, owner: OwnerReference, namespace?: string): Pod {
  const meta = template.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${owner.name}-`,
      namespace,
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [owner],
    },
    spec: structuredClone(template.spec ?? { containers: [] }),
  };
}
