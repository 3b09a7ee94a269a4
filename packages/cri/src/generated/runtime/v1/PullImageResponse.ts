// Original file: proto/cri/api.proto


export interface PullImageResponse {
  'imageRef'?: (string);
}

export interface PullImageResponse__Output {
  'imageRef': (string);
}
