// Original file: proto/cri/api.proto

import type { Image as _runtime_v1_Image, Image__Output as _runtime_v1_Image__Output } from '../../runtime/v1/Image.ts';

export interface ListImagesResponse {
  'images'?: (_runtime_v1_Image)[];
}

export interface ListImagesResponse__Output {
  'images': (_runtime_v1_Image__Output)[];
}
