import type { KubeObject } from '@kruise/runtime';
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { LabelSelector, ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { KnownWorkload } from './known-workloads.ts';

/** A reference to a workload: apiVersion, kind, name, and (optionally) the UID it must have. */
export interface WorkloadRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid?: string;
}

/** A workload as the finder resolved it: what it is, how many replicas it wants, which pods it selects. */
export interface ScaleAndSelector {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** spec.replicas ({@link REPLICAS_UNKNOWN} when the kind has none we know). */
  scale: number;
  /** An Advanced StatefulSet's `spec.reserveOrdinals`, ranges expanded. */
  reserveOrdinals?: Set<number>;
  /** The workload's selector (a scale subresource's `status.selector`, parsed); none for ReplicationControllers. */
  selector?: LabelSelector;
  /** The workload's metadata (a scale subresource's, for kinds found through it). */
  metadata: ObjectMeta;
}

/** The scale of a workload whose kind has no replicas the finder knows. */
export const REPLICAS_UNKNOWN = -1;

/** Resolves workload references to workloads, and workloads to their pods (upstream's ControllerFinder). */
export interface ControllerFinder {
  /**
   * The workload a reference names (upstream's GetScaleAndSelectorForRef), trying in upstream's
   * order: ReplicationController, Deployment, ReplicaSet (one a Deployment controls resolves to
   * that Deployment), apps/v1 StatefulSet, CloneSet, Advanced StatefulSet, the StatefulSet-like
   * workloads of kruise-configuration's PPS_Watch_Custom_Workload_WhiteList, the scale subresource
   * of any other kind, then any object (scale {@link REPLICAS_UNKNOWN}). Groups and kinds are
   * matched whatever the version. Undefined when nothing is found, or when the reference's uid is
   * not the found object's.
   * @throws for any failure but NotFound (a kind the API does not serve among them).
   */
  scaleAndSelectorForRef(ref: WorkloadRef, namespace: string): Promise<ScaleAndSelector | undefined>;
  /**
   * The sum of the scales of the pods' distinct controllers (upstream's GetExpectedScaleForPods),
   * each controller counted once (by the resolved workload's UID); controllers not found or being
   * deleted count nothing.
   */
  expectedScaleForPods(pods: Pod[]): Promise<number>;
  /**
   * A workload's pods and replicas (upstream's GetPodsForRef): none and 0 for a workload that is
   * missing or being deleted; no pods when it wants 0 replicas. Pods are those with an owner
   * reference to the workload (a Deployment: to its ReplicaSets that are not being deleted, or to
   * itself when it has none); for a kind of none of the built-in or Kruise workload kinds, the pods
   * its selector matches when it owns none. `activeOnly` drops pods that are Succeeded, Failed or
   * being deleted.
   */
  podsForRef(
    ref: { apiVersion: string; kind: string; name: string },
    namespace: string,
    activeOnly: boolean,
  ): Promise<{ pods: Pod[]; replicas: number }>;
}

/** An object of any kind, by apiVersion, kind and name. */
export type ObjectRef = Pick<WorkloadRef, 'apiVersion' | 'kind' | 'name'>;

/** Where a finder reads from; the manager passes caches and its API client, tests their own. */
export interface FinderSources {
  /** A workload of a kind the finder knows, in its served version; undefined when there is none. */
  workload(kind: KnownWorkload, namespace: string, name: string): Promise<KubeObject | undefined>;
  /** The ReplicaSets of the namespace with an owner reference of this UID. */
  replicaSetsOwnedBy(namespace: string, ownerUid: string): Promise<ReplicaSet[]>;
  /** The pods of the namespace with an owner reference of this UID. */
  podsOwnedBy(namespace: string, ownerUid: string): Promise<Pod[]>;
  /** The pods of the namespace whose labels the selector matches (an empty selector: every pod). */
  podsMatching(namespace: string, selector: LabelSelector): Promise<Pod[]>;
  /** The data of the `kruise-configuration` ConfigMap; undefined when there is none. */
  kruiseConfiguration(): Promise<Record<string, string> | undefined>;
  /**
   * The autoscaling/v1 Scale of an object of any kind; undefined when the object, or its kind's
   * scale subresource, is not there.
   * @throws when the API does not serve the kind, or fails.
   */
  scale(ref: ObjectRef, namespace: string): Promise<Scale | undefined>;
  /**
   * An object of any kind; undefined when it is not there.
   * @throws when the API does not serve the kind, or fails.
   */
  object(ref: ObjectRef, namespace: string): Promise<KubeObject | undefined>;
}
