// Original file: proto/cri/api.proto


export interface StatusRequest {
  'verbose'?: (boolean);
}

export interface StatusRequest__Output {
  'verbose': (boolean);
}
