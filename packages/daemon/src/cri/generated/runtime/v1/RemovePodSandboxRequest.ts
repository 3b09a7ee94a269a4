// Original file: /work/main/proto/cri/api.proto


export interface RemovePodSandboxRequest {
  'podSandboxId'?: (string);
}

export interface RemovePodSandboxRequest__Output {
  'podSandboxId': (string);
}
