import { PROGRESSIVE_CREATE_POD_ANNOTATION } from '@kruise/api';
import type { KindConversion, KubeObject } from '@kruise/runtime';

/** Renames a status field (the same value under v1beta1's and v1alpha1's name for it). */
function renameStatus(obj: KubeObject, from: string, to: string): void {
  const status = obj.status as Record<string, unknown> | undefined;
  if (!status || !(from in status)) return;
  if (status[from] !== undefined && status[from] !== '') status[to] = status[from];
  delete status[from];
}

/**
 * Advanced DaemonSet: v1beta1 (storage, the hub) ⇄ v1alpha1, as upstream converts it. Toward v1beta1
 * the deprecated `Surging` rolling update type becomes `Standard` (surging is Standard with a
 * maxSurge), the `daemonset.kruise.io/progressive-create-pod: "true"` annotation becomes
 * `scaleStrategy.partitionedScaling`, and `daemonSetHash` is `updateRevision`; back at v1alpha1,
 * partitioned scaling is that annotation again and `updateRevision` is `daemonSetHash`.
 */
export const daemonSetConversion: KindConversion = {
  group: 'apps.kruise.io',
  kind: 'DaemonSet',
  hub: 'v1beta1',
  spokes: {
    v1alpha1: {
      toHub: (obj) => {
        const spec = (obj.spec ?? {}) as Record<string, any>;
        const rolling = spec.updateStrategy?.rollingUpdate;
        if (rolling?.rollingUpdateType === 'Surging') rolling.rollingUpdateType = 'Standard';
        delete spec.scaleStrategy;
        if (obj.metadata?.annotations?.[PROGRESSIVE_CREATE_POD_ANNOTATION] === 'true')
          spec.scaleStrategy = { partitionedScaling: true };
        renameStatus(obj, 'daemonSetHash', 'updateRevision');
        return obj;
      },
      fromHub: (obj) => {
        const spec = (obj.spec ?? {}) as Record<string, any>;
        if (spec.scaleStrategy?.partitionedScaling === true)
          obj.metadata = {
            ...obj.metadata,
            annotations: { ...obj.metadata?.annotations, [PROGRESSIVE_CREATE_POD_ANNOTATION]: 'true' },
          };
        delete spec.scaleStrategy;
        renameStatus(obj, 'updateRevision', 'daemonSetHash');
        return obj;
      },
    },
  },
};
