// Original file: proto/cri/api.proto


export interface ContainerStatusRequest {
  'containerId'?: (string);
  'verbose'?: (boolean);
}

export interface ContainerStatusRequest__Output {
  'containerId': (string);
  'verbose': (boolean);
}
