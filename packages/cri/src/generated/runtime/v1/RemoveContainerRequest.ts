// Original file: proto/cri/api.proto


export interface RemoveContainerRequest {
  'containerId'?: (string);
}

export interface RemoveContainerRequest__Output {
  'containerId': (string);
}
