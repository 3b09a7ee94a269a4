// Original file: proto/cri/api.proto


export interface FilesystemIdentifier {
  'mountpoint'?: (string);
}

export interface FilesystemIdentifier__Output {
  'mountpoint': (string);
}
