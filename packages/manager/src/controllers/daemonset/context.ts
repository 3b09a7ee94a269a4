import type { DaemonSet, ImagePullJob } from '@kruise/api';
import type { Backoff } from '@kruise/kube-compat';
import type { EventType, KubeClient, Logger } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { KubeletContainerHash } from '../../workload/inplaceupdate/completion.ts';
import type { ExpectationCheckLike, ResourceVersionExpectationsLike } from '../cloneset/context.ts';

/** The apiVersion the controller writes in owner references (the storage version). */
export const DAEMONSET_API_VERSION = 'apps.kruise.io/v1beta1';

/** Label a daemon pod and its revision carry the revision's hash in. */
export const DAEMONSET_HASH_LABEL = 'controller-revision-hash';

/** Label with the template generation (pods of DaemonSets from before revision hashes). */
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

/** Annotation with that generation on the DaemonSet. */
export const DEPRECATED_TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/** Create and delete expectations by count (daemon pods are named by the API server). */
export interface DaemonScaleExpectations {
  expectCreations(owner: string, count: number): void;
  expectDeletions(owner: string, count: number): void;
  creationObserved(owner: string, name?: string): void;
  deletionObserved(owner: string, name?: string): void;
  check(owner: string): ExpectationCheckLike;
  delete(owner: string): void;
}

/** What the Advanced DaemonSet sync steps work with. */
export interface DaemonSetDeps {
  client: KubeClient;
  /** Records an event on the DaemonSet (upstream's reasons and messages). */
  event(ds: DaemonSet, type: EventType, reason: string, message: string): void;
  /** The ImagePullJobs a DaemonSet owns (image pre-download). */
  ownedJobs(ds: DaemonSet): ImagePullJob[];
  scaleExpectations: DaemonScaleExpectations;
  resourceVersionExpectations: ResourceVersionExpectationsLike;
  gates: { enabled(name: string): boolean };
  kubeletHash: KubeletContainerHash;
  /** Per node: the delay before a failed daemon pod there is deleted again (1 s doubling to 15 min). */
  failedPodsBackoff: Backoff;
  /** Flag --assign-pods-by-scheduler: pods pinned by affinity for the scheduler (true), or given their nodeName. */
  assignPodsByScheduler: boolean;
  now: () => number;
  log: Logger;
}

/** What a reconcile reads: the caches. */
export interface DaemonSetCaches {
  daemonSet(key: string): DaemonSet | undefined;
  nodes(): Node[];
  node(name: string): Node | undefined;
  /** Pods whose ownerReferences name this UID. */
  ownedPods(uid: string): Pod[];
  /** Pods of a namespace that no controller owns (adoption candidates). */
  orphanPods(namespace: string): Pod[];
  ownedRevisions(uid: string): ControllerRevision[];
  /** A fresh read of the DaemonSet from the API (before adopting anything). */
  fresh(ds: DaemonSet): Promise<DaemonSet | undefined>;
}

/** The DaemonSet's key `namespace/name`. */
export const dsKey = (ds: DaemonSet) => `${ds.metadata?.namespace}/${ds.metadata?.name}`;

/** The template generation the DaemonSet's deprecated annotation gives (GetTemplateGeneration), if a number. */
export function templateGeneration(ds: DaemonSet): string | undefined {
  const text = ds.metadata?.annotations?.[DEPRECATED_TEMPLATE_GENERATION_ANNOTATION];
  return text !== undefined && /^[+-]?\d+$/.test(text) ? String(Number(text)) : undefined;
}
