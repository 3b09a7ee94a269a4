import { SIDECARSET_CUSTOM_VERSION_LABEL } from '@kruise/api';
import type { KindConversion } from '@kruise/runtime';

/** The label every namespace carries with its own name (Kubernetes ≥ 1.21). */
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * SidecarSet: v1beta1 (storage, the hub) ⇄ v1alpha1, as upstream converts it. Toward v1beta1 a
 * v1alpha1 `namespace` becomes a namespaceSelector on `kubernetes.io/metadata.name` (it wins over a
 * namespaceSelector written beside it), and the `apps.kruise.io/sidecarset-custom-version` label
 * becomes `spec.customVersion`; back at v1alpha1, the namespaceSelector is kept as it is and
 * `customVersion` is that label again.
 */
export const sidecarSetConversion: KindConversion = {
  group: 'apps.kruise.io',
  kind: 'SidecarSet',
  hub: 'v1beta1',
  spokes: {
    v1alpha1: {
      toHub: (obj) => {
        const spec = (obj.spec ?? {}) as Record<string, any>;
        if (typeof spec.namespace === 'string' && spec.namespace !== '')
          spec.namespaceSelector = { matchLabels: { [NAMESPACE_NAME_LABEL]: spec.namespace } };
        delete spec.namespace;
        delete spec.customVersion;
        const labels = obj.metadata?.labels;
        if (labels && SIDECARSET_CUSTOM_VERSION_LABEL in labels) {
          spec.customVersion = labels[SIDECARSET_CUSTOM_VERSION_LABEL];
          const { [SIDECARSET_CUSTOM_VERSION_LABEL]: _, ...rest } = labels;
          obj.metadata = { ...obj.metadata, labels: rest };
        }
        obj.spec = spec;
        return obj;
      },
      fromHub: (obj) => {
        const spec = (obj.spec ?? {}) as Record<string, any>;
        if (typeof spec.customVersion === 'string' && spec.customVersion !== '')
          obj.metadata = {
            ...obj.metadata,
            labels: { ...obj.metadata?.labels, [SIDECARSET_CUSTOM_VERSION_LABEL]: spec.customVersion },
          };
        delete spec.customVersion;
        return obj;
      },
    },
  },
};
