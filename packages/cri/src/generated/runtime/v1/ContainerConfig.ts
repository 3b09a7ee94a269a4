// Original file: proto/cri/api.proto

import type { ContainerMetadata as _runtime_v1_ContainerMetadata, ContainerMetadata__Output as _runtime_v1_ContainerMetadata__Output } from '../../runtime/v1/ContainerMetadata.ts';
import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec.ts';
import type { KeyValue as _runtime_v1_KeyValue, KeyValue__Output as _runtime_v1_KeyValue__Output } from '../../runtime/v1/KeyValue.ts';
import type { Mount as _runtime_v1_Mount, Mount__Output as _runtime_v1_Mount__Output } from '../../runtime/v1/Mount.ts';
import type { LinuxContainerConfig as _runtime_v1_LinuxContainerConfig, LinuxContainerConfig__Output as _runtime_v1_LinuxContainerConfig__Output } from '../../runtime/v1/LinuxContainerConfig.ts';

export interface ContainerConfig {
  'metadata'?: (_runtime_v1_ContainerMetadata | null);
  'image'?: (_runtime_v1_ImageSpec | null);
  'command'?: (string)[];
  'args'?: (string)[];
  'workingDir'?: (string);
  'envs'?: (_runtime_v1_KeyValue)[];
  'mounts'?: (_runtime_v1_Mount)[];
  'labels'?: ({[key: string]: string});
  'annotations'?: ({[key: string]: string});
  'logPath'?: (string);
  'stdin'?: (boolean);
  'stdinOnce'?: (boolean);
  'tty'?: (boolean);
  'linux'?: (_runtime_v1_LinuxContainerConfig | null);
}

export interface ContainerConfig__Output {
  'metadata': (_runtime_v1_ContainerMetadata__Output | null);
  'image': (_runtime_v1_ImageSpec__Output | null);
  'command': (string)[];
  'args': (string)[];
  'workingDir': (string);
  'envs': (_runtime_v1_KeyValue__Output)[];
  'mounts': (_runtime_v1_Mount__Output)[];
  'labels': ({[key: string]: string});
  'annotations': ({[key: string]: string});
  'logPath': (string);
  'stdin': (boolean);
  'stdinOnce': (boolean);
  'tty': (boolean);
  'linux': (_runtime_v1_LinuxContainerConfig__Output | null);
}
