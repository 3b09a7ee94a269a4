// Original file: proto/cri/api.proto

import type { ContainerMetadata as _runtime_v1_ContainerMetadata, ContainerMetadata__Output as _runtime_v1_ContainerMetadata__Output } from '../../runtime/v1/ContainerMetadata.ts';
import type { ContainerState as _runtime_v1_ContainerState, ContainerState__Output as _runtime_v1_ContainerState__Output } from '../../runtime/v1/ContainerState.ts';
import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec.ts';
import type { Mount as _runtime_v1_Mount, Mount__Output as _runtime_v1_Mount__Output } from '../../runtime/v1/Mount.ts';
import type { Long } from '@grpc/proto-loader';

export interface ContainerStatus {
  'id'?: (string);
  'metadata'?: (_runtime_v1_ContainerMetadata | null);
  'state'?: (_runtime_v1_ContainerState);
  'createdAt'?: (number | string | Long);
  'startedAt'?: (number | string | Long);
  'finishedAt'?: (number | string | Long);
  'exitCode'?: (number);
  'image'?: (_runtime_v1_ImageSpec | null);
  'imageRef'?: (string);
  'reason'?: (string);
  'message'?: (string);
  'labels'?: ({[key: string]: string});
  'annotations'?: ({[key: string]: string});
  'mounts'?: (_runtime_v1_Mount)[];
  'logPath'?: (string);
}

export interface ContainerStatus__Output {
  'id': (string);
  'metadata': (_runtime_v1_ContainerMetadata__Output | null);
  'state': (_runtime_v1_ContainerState__Output);
  'createdAt': (string);
  'startedAt': (string);
  'finishedAt': (string);
  'exitCode': (number);
  'image': (_runtime_v1_ImageSpec__Output | null);
  'imageRef': (string);
  'reason': (string);
  'message': (string);
  'labels': ({[key: string]: string});
  'annotations': ({[key: string]: string});
  'mounts': (_runtime_v1_Mount__Output)[];
  'logPath': (string);
}
