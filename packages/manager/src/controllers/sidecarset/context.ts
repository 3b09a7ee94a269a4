import type { SidecarSet } from '@kruise/api';
import type { EventType, KubeClient, Logger } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PubUpdateGuard } from '../../workload/pub/update-guard.ts';
import type { NamespaceLabels } from '../../workload/sidecarset/index.ts';
import type { ExpectationCheckLike, ResourceVersionExpectationsLike } from '../cloneset/context.ts';

/** Pods a SidecarSet updated to a hash, until the cache shows them at it (upstream's UpdateExpectations). */
export interface SidecarUpdateExpectations {
  expectUpdated(sidecarSet: string, hash: string, pod: Pod): void;
  observeUpdated(sidecarSet: string, hash: string, pod: Pod): void;
  /** The pod is gone or no longer matched: stop waiting for it. */
  forget(sidecarSet: string, hash: string, pod: Pod): void;
  check(sidecarSet: string, hash: string): ExpectationCheckLike;
  delete(sidecarSet: string): void;
}

/** What the SidecarSet reconcile works with. */
export interface SidecarSetDeps {
  client: KubeClient;
  /** Records an event on a SidecarSet, or on a pod (given with its kind). */
  event(obj: SidecarSet | Pod, type: EventType, reason: string, message: string): void;
  /** The namespace revisions are kept in (the Kruise namespace). */
  kruiseNamespace: string;
  updateExpectations: SidecarUpdateExpectations;
  resourceVersionExpectations: ResourceVersionExpectationsLike;
  /** Asks a pod's PodUnavailableBudget before upgrading its sidecars (gate PodUnavailableBudgetUpdateGate). */
  pubUpdateGuard?: PubUpdateGuard;
  now: () => number;
  log: Logger;
}

/** What a reconcile reads: the caches. */
export interface SidecarSetCaches {
  sidecarSet(name: string): SidecarSet | undefined;
  /** Pods whose `kruise.io/sidecarset-injected-list` names the SidecarSet. */
  injectedPods(name: string): Pod[];
  /** Pods the SidecarSet's selector may pick (a superset: the caller matches). */
  selectablePods(sidecarSet: SidecarSet): Pod[];
  namespaceLabels: NamespaceLabels;
  /** Whether the pod came into the SidecarSet's selection after its creation (see LateSelection). */
  selectedLate(sidecarSet: SidecarSet, pod: Pod): boolean;
  /** The revisions labelled `kruise.io/sidecarset-name: <name>` in the Kruise namespace. */
  revisions(name: string): ControllerRevision[];
}
