// Original file: proto/cri/api.proto

import type { LinuxContainerSecurityContext as _runtime_v1_LinuxContainerSecurityContext, LinuxContainerSecurityContext__Output as _runtime_v1_LinuxContainerSecurityContext__Output } from '../../runtime/v1/LinuxContainerSecurityContext.ts';

export interface LinuxContainerConfig {
  'securityContext'?: (_runtime_v1_LinuxContainerSecurityContext | null);
}

export interface LinuxContainerConfig__Output {
  'securityContext': (_runtime_v1_LinuxContainerSecurityContext__Output | null);
}
