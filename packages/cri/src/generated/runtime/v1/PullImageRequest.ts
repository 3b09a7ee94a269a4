// Original file: proto/cri/api.proto

import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec.ts';
import type { AuthConfig as _runtime_v1_AuthConfig, AuthConfig__Output as _runtime_v1_AuthConfig__Output } from '../../runtime/v1/AuthConfig.ts';
import type { PodSandboxConfig as _runtime_v1_PodSandboxConfig, PodSandboxConfig__Output as _runtime_v1_PodSandboxConfig__Output } from '../../runtime/v1/PodSandboxConfig.ts';

export interface PullImageRequest {
  'image'?: (_runtime_v1_ImageSpec | null);
  'auth'?: (_runtime_v1_AuthConfig | null);
  'sandboxConfig'?: (_runtime_v1_PodSandboxConfig | null);
}

export interface PullImageRequest__Output {
  'image': (_runtime_v1_ImageSpec__Output | null);
  'auth': (_runtime_v1_AuthConfig__Output | null);
  'sandboxConfig': (_runtime_v1_PodSandboxConfig__Output | null);
}
