// Original file: proto/cri/api.proto

import type { PodSandbox as _runtime_v1_PodSandbox, PodSandbox__Output as _runtime_v1_PodSandbox__Output } from '../../runtime/v1/PodSandbox.ts';

export interface ListPodSandboxResponse {
  'items'?: (_runtime_v1_PodSandbox)[];
}

export interface ListPodSandboxResponse__Output {
  'items': (_runtime_v1_PodSandbox__Output)[];
}
