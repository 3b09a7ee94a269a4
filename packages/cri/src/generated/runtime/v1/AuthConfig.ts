// Original file: proto/cri/api.proto


export interface AuthConfig {
  'username'?: (string);
  'password'?: (string);
  'auth'?: (string);
  'serverAddress'?: (string);
  'identityToken'?: (string);
  'registryToken'?: (string);
}

export interface AuthConfig__Output {
  'username': (string);
  'password': (string);
  'auth': (string);
  'serverAddress': (string);
  'identityToken': (string);
  'registryToken': (string);
}
