// Original file: proto/cri/api.proto


export interface RunPodSandboxResponse {
  'podSandboxId'?: (string);
}

export interface RunPodSandboxResponse__Output {
  'podSandboxId': (string);
}
