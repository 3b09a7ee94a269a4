// Original file: proto/cri/api.proto

import type { ContainerMetadata as _runtime_v1_ContainerMetadata, ContainerMetadata__Output as _runtime_v1_ContainerMetadata__Output } from '../../runtime/v1/ContainerMetadata.ts';
import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec.ts';
import type { ContainerState as _runtime_v1_ContainerState, ContainerState__Output as _runtime_v1_ContainerState__Output } from '../../runtime/v1/ContainerState.ts';
import type { Long } from '@grpc/proto-loader';

export interface Container {
  'id'?: (string);
  'podSandboxId'?: (string);
  'metadata'?: (_runtime_v1_ContainerMetadata | null);
  'image'?: (_runtime_v1_ImageSpec | null);
  'imageRef'?: (string);
  'state'?: (_runtime_v1_ContainerState);
  'createdAt'?: (number | string | Long);
  'labels'?: ({[key: string]: string});
  'annotations'?: ({[key: string]: string});
}

export interface Container__Output {
  'id': (string);
  'podSandboxId': (string);
  'metadata': (_runtime_v1_ContainerMetadata__Output | null);
  'image': (_runtime_v1_ImageSpec__Output | null);
  'imageRef': (string);
  'state': (_runtime_v1_ContainerState__Output);
  'createdAt': (string);
  'labels': ({[key: string]: string});
  'annotations': ({[key: string]: string});
}
