// Original file: proto/cri/api.proto

import type { NamespaceOption as _runtime_v1_NamespaceOption, NamespaceOption__Output as _runtime_v1_NamespaceOption__Output } from '../../runtime/v1/NamespaceOption.ts';
import type { Int64Value as _runtime_v1_Int64Value, Int64Value__Output as _runtime_v1_Int64Value__Output } from '../../runtime/v1/Int64Value.ts';

export interface LinuxContainerSecurityContext {
  'privileged'?: (boolean);
  'namespaceOptions'?: (_runtime_v1_NamespaceOption | null);
  'runAsUser'?: (_runtime_v1_Int64Value | null);
  'runAsUsername'?: (string);
  'readonlyRootfs'?: (boolean);
}

export interface LinuxContainerSecurityContext__Output {
  'privileged': (boolean);
  'namespaceOptions': (_runtime_v1_NamespaceOption__Output | null);
  'runAsUser': (_runtime_v1_Int64Value__Output | null);
  'runAsUsername': (string);
  'readonlyRootfs': (boolean);
}
