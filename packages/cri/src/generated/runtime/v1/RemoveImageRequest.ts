// Original file: proto/cri/api.proto

import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec.ts';

export interface RemoveImageRequest {
  'image'?: (_runtime_v1_ImageSpec | null);
}

export interface RemoveImageRequest__Output {
  'image': (_runtime_v1_ImageSpec__Output | null);
}
