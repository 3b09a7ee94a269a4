// Original file: /work/main/proto/cri/api.proto


export interface RemoveImageResponse {
}

export interface RemoveImageResponse__Output {
}
