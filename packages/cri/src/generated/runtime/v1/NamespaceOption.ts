// Original file: proto/cri/api.proto

import type { NamespaceMode as _runtime_v1_NamespaceMode, NamespaceMode__Output as _runtime_v1_NamespaceMode__Output } from '../../runtime/v1/NamespaceMode.ts';

export interface NamespaceOption {
  'network'?: (_runtime_v1_NamespaceMode);
  'pid'?: (_runtime_v1_NamespaceMode);
  'ipc'?: (_runtime_v1_NamespaceMode);
  'targetId'?: (string);
}

export interface NamespaceOption__Output {
  'network': (_runtime_v1_NamespaceMode__Output);
  'pid': (_runtime_v1_NamespaceMode__Output);
  'ipc': (_runtime_v1_NamespaceMode__Output);
  'targetId': (string);
}
