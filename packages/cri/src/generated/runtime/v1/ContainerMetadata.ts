// Original file: proto/cri/api.proto


export interface ContainerMetadata {
  'name'?: (string);
  'attempt'?: (number);
}

export interface ContainerMetadata__Output {
  'name': (string);
  'attempt': (number);
}
