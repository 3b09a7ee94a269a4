import type { ImagePullJob, StatefulSet } from '@kruise/api';
import type { EventType, KubeClient, Logger } from '@kruise/runtime';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { KubeletContainerHash } from '../../workload/inplaceupdate/completion.ts';
import type { PubUpdateGuard } from '../../workload/pub/update-guard.ts';
import type { ResourceVersionExpectationsLike, ScaleExpectationsLike } from '../cloneset/context.ts';

/** What the StatefulSet sync steps work with. */
export interface StatefulSetDeps {
  client: KubeClient;
  /** Records an event on the set (upstream's reasons and messages). */
  event(set: StatefulSet, type: EventType, reason: string, message: string): void;
  /** A claim from the cache. */
  claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  /** A StorageClass from the cache (claim resize). */
  storageClass(name: string): StorageClass | undefined;
  /** The ImagePullJobs a set owns (image pre-download). */
  ownedJobs(set: StatefulSet): ImagePullJob[];
  scaleExpectations: ScaleExpectationsLike;
  resourceVersionExpectations: ResourceVersionExpectationsLike;
  gates: { enabled(name: string): boolean };
  kubeletHash: KubeletContainerHash;
  /** Asks a pod's PodUnavailableBudget before updating it (gate PodUnavailableBudgetUpdateGate). */
  pubUpdateGuard?: PubUpdateGuard;
  now: () => number;
  log: Logger;
}

/** The set's key `namespace/name`. */
export const setKey = (set: StatefulSet) => `${set.metadata?.namespace}/${set.metadata?.name}`;
