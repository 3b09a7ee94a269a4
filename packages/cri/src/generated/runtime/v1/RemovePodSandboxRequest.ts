// Original file: proto/cri/api.proto


export interface RemovePodSandboxRequest {
  'podSandboxId'?: (string);
}

export interface RemovePodSandboxRequest__Output {
  'podSandboxId': (string);
}
