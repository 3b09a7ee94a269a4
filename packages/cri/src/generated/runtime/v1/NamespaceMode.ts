// Original file: proto/cri/api.proto

export const NamespaceMode = {
  POD: 'POD',
  CONTAINER: 'CONTAINER',
  NODE: 'NODE',
  TARGET: 'TARGET',
} as const;

export type NamespaceMode =
  | 'POD'
  | 0
  | 'CONTAINER'
  | 1
  | 'NODE'
  | 2
  | 'TARGET'
  | 3

export type NamespaceMode__Output = typeof NamespaceMode[keyof typeof NamespaceMode]
