// Original file: proto/cri/api.proto

import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec.ts';

export interface ImageStatusRequest {
  'image'?: (_runtime_v1_ImageSpec | null);
  'verbose'?: (boolean);
}

export interface ImageStatusRequest__Output {
  'image': (_runtime_v1_ImageSpec__Output | null);
  'verbose': (boolean);
}
