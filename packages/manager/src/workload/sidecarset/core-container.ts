import type { SidecarContainer } from '@kruise/api';
import type { Container } from 'kubernetes-types/core/v1.js';

/** A SidecarContainer as a core container: the SidecarSet's own fields left out. */
export function coreContainer(sidecar: SidecarContainer): Container {
  const {
    podInjectPolicy: _p,
    upgradeStrategy: _u,
    shareVolumePolicy: _s,
    shareVolumeDevicePolicy: _d,
    transferEnv: _t,
    resourcesPolicy: _r,
    ...container
  } = sidecar;
  return container;
}
