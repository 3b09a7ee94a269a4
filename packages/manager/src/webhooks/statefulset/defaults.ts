import {
  type FeatureGates,
  type StatefulSet,
  type StatefulSetSpec,
  setPodSpecDefaults,
  setVolumeClaimTemplateDefaults,
} from '@kruise/api';
import type { PodSpec } from 'kubernetes-types/core/v1.js';

/**
 * Upstream's SetDefaultsStatefulSet, in its order: podManagementPolicy OrderedReady; updateStrategy
 * RollingUpdate, whose rollingUpdate gets partition 0, maxUnavailable 1, podUpdatePolicy ReCreate
 * and minReadySeconds 0; persistentVolumeClaimRetentionPolicy Retain/Retain (gate
 * StatefulSetAutoDeletePVC); volumeClaimUpdateStrategy OnDelete (gate StatefulSetAutoResizePVCGate);
 * replicas 1; revisionHistoryLimit 10; with `injectTemplateDefaults` the Kubernetes pod-template
 * and volumeClaimTemplate defaults. Mutates `sts`.
 */
export function setStatefulSetDefaults(
  sts: StatefulSet,
  gates: FeatureGates,
  injectTemplateDefaults: boolean,
): StatefulSet {
  sts.spec ??= {} as StatefulSetSpec;
  const spec = sts.spec;
  spec.podManagementPolicy ||= 'OrderedReady';
  spec.updateStrategy ??= {};
  const strategy = spec.updateStrategy;
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    strategy.rollingUpdate ??= {};
    const rolling = strategy.rollingUpdate;
    rolling.partition ??= 0;
    rolling.maxUnavailable ??= 1;
    rolling.podUpdatePolicy ||= 'ReCreate';
    rolling.minReadySeconds ??= 0;
  }
  if (gates.enabled('StatefulSetAutoDeletePVC')) {
    spec.persistentVolumeClaimRetentionPolicy ??= {};
    const retention = spec.persistentVolumeClaimRetentionPolicy;
    retention.whenDeleted ||= 'Retain';
    retention.whenScaled ||= 'Retain';
  }
  if (gates.enabled('StatefulSetAutoResizePVCGate')) {
    spec.volumeClaimUpdateStrategy ??= {};
    spec.volumeClaimUpdateStrategy.type ||= 'OnDelete';
  }
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  if (injectTemplateDefaults) {
    spec.template ??= {};
    spec.template.spec ??= {} as PodSpec;
    setPodSpecDefaults(spec.template.spec);
    for (const vct of spec.volumeClaimTemplates ?? []) if (vct) setVolumeClaimTemplateDefaults(vct);
  }
  return sts;
}
