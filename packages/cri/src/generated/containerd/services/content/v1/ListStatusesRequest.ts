// Original file: proto/containerd/content.proto


export interface ListStatusesRequest {
  'filters'?: (string)[];
}

export interface ListStatusesRequest__Output {
  'filters': (string)[];
}
