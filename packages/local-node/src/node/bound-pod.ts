import type { Pod } from 'kubernetes-types/core/v1.js';

/** A pod as the local node reads it: bound, so metadata and spec are there. */
export type BoundPod = Pod & {
  metadata: { name: string; namespace: string; uid: string };
  spec: NonNullable<Pod['spec']>;
};
