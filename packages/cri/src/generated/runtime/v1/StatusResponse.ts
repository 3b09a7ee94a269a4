// Original file: proto/cri/api.proto

import type { RuntimeStatus as _runtime_v1_RuntimeStatus, RuntimeStatus__Output as _runtime_v1_RuntimeStatus__Output } from '../../runtime/v1/RuntimeStatus.ts';

export interface StatusResponse {
  'status'?: (_runtime_v1_RuntimeStatus | null);
  'info'?: ({[key: string]: string});
}

export interface StatusResponse__Output {
  'status': (_runtime_v1_RuntimeStatus__Output | null);
  'info': ({[key: string]: string});
}
