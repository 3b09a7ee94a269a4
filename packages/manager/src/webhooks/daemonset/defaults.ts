import type { DaemonSet, DaemonSetSpec } from '@kruise/api';
import type { DaemonSetVersion } from './versions.ts';

/**
 * Upstream's SetDefaultsDaemonSet (v1alpha1) and SetDefaultsDaemonSetV1beta1: burstReplicas 250;
 * updateStrategy RollingUpdate, whose rollingUpdate gets type Standard and, only when neither is
 * set, maxUnavailable 1 and maxSurge 0; revisionHistoryLimit 10. At v1alpha1 the deprecated
 * `Surging` type first gets maxSurge 1 and maxUnavailable 0 where unset, then becomes Standard.
 * The pod template gets no defaults (upstream injects none for DaemonSets). Mutates `ds`.
 */
export function setDaemonSetDefaults(ds: DaemonSet, version: DaemonSetVersion): DaemonSet {
  ds.spec ??= {} as DaemonSetSpec;
  const spec = ds.spec;
  spec.burstReplicas ??= 250;
  spec.updateStrategy ??= {};
  const strategy = spec.updateStrategy;
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    strategy.rollingUpdate ??= {};
    const rolling = strategy.rollingUpdate;
    if (version === 'v1alpha1' && rolling.rollingUpdateType === 'Surging') {
      rolling.maxSurge ??= 1;
      rolling.maxUnavailable ??= 0;
      rolling.rollingUpdateType = 'Standard';
    }
    rolling.rollingUpdateType ||= 'Standard';
    if (
      (rolling.maxUnavailable === undefined || rolling.maxUnavailable === null) &&
      (rolling.maxSurge === undefined || rolling.maxSurge === null)
    ) {
      rolling.maxUnavailable = 1;
      rolling.maxSurge = 0;
    }
  }
  spec.revisionHistoryLimit ??= 10;
  return ds;
}
