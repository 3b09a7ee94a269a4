import {
  defaultContainerCore,
  defaultEnv,
  defaultHttpGet,
  defaultProbe,
  defaultVolume,
  type PodInjectPolicyType,
  type SidecarContainer,
  type SidecarSet,
  type SidecarSetSpec,
} from '@kruise/api';

/**
 * Upstream's SetDefaultsSidecarSet (v1alpha1) and SetDefaultsSidecarSetV1beta1, which are the same
 * at both versions: what a SidecarSet holds after its defaulting webhook.
 */

/**
 * A sidecar container's defaults: its podInjectPolicy (`inject`), upgradeType ColdUpgrade,
 * shareVolumePolicy disabled, then Kubernetes' container defaults as upstream applies them
 * (SetDefaults_Container, port protocol TCP, fieldRef apiVersion v1 in env and transferEnv, the
 * liveness and readiness probes' and the lifecycle hooks' defaults; a startup probe is left as is).
 */
function defaultSidecarContainer(c: SidecarContainer, inject: PodInjectPolicyType): void {
  c.podInjectPolicy ||= inject;
  c.upgradeStrategy ??= {};
  c.upgradeStrategy.upgradeType ||= 'ColdUpgrade';
  c.shareVolumePolicy ??= {};
  c.shareVolumePolicy.type ||= 'disabled';
  defaultContainerCore(c);
  for (const p of c.ports ?? []) p.protocol ||= 'TCP';
  for (const t of c.transferEnv ?? [])
    if (t.sourceContainerNameFrom?.fieldRef) t.sourceContainerNameFrom.fieldRef.apiVersion ||= 'v1';
  defaultEnv(c.env);
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultHttpGet(c.lifecycle?.postStart?.httpGet);
  defaultHttpGet(c.lifecycle?.preStop?.httpGet);
}

/**
 * Sets a SidecarSet's defaults (mutates and returns it): updateStrategy type RollingUpdate,
 * maxUnavailable 1, partition 0; init containers AfterAppContainer and containers
 * BeforeAppContainer (see `defaultSidecarContainer`); the volumes' Kubernetes defaults;
 * revisionHistoryLimit 10; each patchPodMetadata's patchPolicy Retain; an injection revision's
 * policy Always.
 */
export function setSidecarSetDefaults(sidecarSet: SidecarSet): SidecarSet {
  sidecarSet.spec ??= {} as SidecarSetSpec;
  const spec = sidecarSet.spec;
  spec.updateStrategy ??= {};
  const strategy = spec.updateStrategy;
  strategy.type ||= 'RollingUpdate';
  strategy.maxUnavailable ??= 1;
  strategy.partition ??= 0;
  for (const c of spec.initContainers ?? []) defaultSidecarContainer(c, 'AfterAppContainer');
  for (const c of spec.containers ?? []) defaultSidecarContainer(c, 'BeforeAppContainer');
  for (const v of spec.volumes ?? []) defaultVolume(v);
  spec.revisionHistoryLimit ??= 10;
  for (const patch of spec.patchPodMetadata ?? []) patch.patchPolicy ||= 'Retain';
  const revision = spec.injectionStrategy?.revision;
  if (revision) revision.policy ||= 'Always';
  return sidecarSet;
}
