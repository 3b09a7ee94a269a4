// Original file: proto/cri/api.proto

import type { RuntimeCondition as _runtime_v1_RuntimeCondition, RuntimeCondition__Output as _runtime_v1_RuntimeCondition__Output } from '../../runtime/v1/RuntimeCondition.ts';

export interface RuntimeStatus {
  'conditions'?: (_runtime_v1_RuntimeCondition)[];
}

export interface RuntimeStatus__Output {
  'conditions': (_runtime_v1_RuntimeCondition__Output)[];
}
