// Original file: proto/containerd/content.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../../google/protobuf/Timestamp.ts';
import type { Long } from '@grpc/proto-loader';

export interface Status {
  'startedAt'?: (_google_protobuf_Timestamp | null);
  'updatedAt'?: (_google_protobuf_Timestamp | null);
  'ref'?: (string);
  'offset'?: (number | string | Long);
  'total'?: (number | string | Long);
  'expected'?: (string);
}

export interface Status__Output {
  'startedAt': (_google_protobuf_Timestamp__Output | null);
  'updatedAt': (_google_protobuf_Timestamp__Output | null);
  'ref': (string);
  'offset': (string);
  'total': (string);
  'expected': (string);
}
