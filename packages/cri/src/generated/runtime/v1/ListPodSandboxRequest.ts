// Original file: proto/cri/api.proto

import type { PodSandboxFilter as _runtime_v1_PodSandboxFilter, PodSandboxFilter__Output as _runtime_v1_PodSandboxFilter__Output } from '../../runtime/v1/PodSandboxFilter.ts';

export interface ListPodSandboxRequest {
  'filter'?: (_runtime_v1_PodSandboxFilter | null);
}

export interface ListPodSandboxRequest__Output {
  'filter': (_runtime_v1_PodSandboxFilter__Output | null);
}
