/**
 * Computations that must give the answers Kubernetes' Go code gives — hashes, JSON bytes,
 * quantities, IntOrString, label selectors, times, image references, kubelet's CRI metadata, Go's
 * durations, booleans and time zones, robfig/cron schedules, feature-gate flags, node affinity, taints,
 * daemon placement, pod resource requests and node fit — and the shape of a resource's address. Nothing here
 * is Kruise's API; it imports nothing of this repository's.
 */

export * from './controller-revision.ts';
export * from './cron-parser.ts';
export * from './cron-schedule.ts';
export * from './daemon-placement.ts';
export * from './daemon-pod-node.ts';
export * from './daemon-rolling.ts';
export * from './feature-gate-parser.ts';
export * from './flowcontrol-backoff.ts';
export * from './go-bool.ts';
export * from './go-core-structs.ts';
export * from './go-duration.ts';
export * from './go-float.ts';
export * from './go-hash.ts';
export * from './go-json.ts';
export * from './go-struct-codec.ts';
export * from './go-time-zone.ts';
export * from './image-reference.ts';
export * from './intstr.ts';
export * from './json-equal.ts';
export * from './kubelet-hash.ts';
export * from './kubelet-labels.ts';
export * from './label-selector.ts';
export * from './label-selector-parse.ts';
export * from './node-affinity.ts';
export * from './node-fit.ts';
export * from './pod-requests.ts';
export * from './quantity.ts';
export * from './resource-ref.ts';
export * from './statefulset-claim-retention.ts';
export * from './statefulset-identity.ts';
export * from './statefulset-ordinals.ts';
export * from './taints.ts';
export * from './time.ts';
