export * from './node/kubelet-metadata.ts';
export * from './node/local-node.ts';
export * from './node/pod-status.ts';
export * from './node/restart-backoff.ts';
