import type { CloneSet } from '@kruise/api';
import type { EventType, KubeClient, KubeObject, Logger } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KubeletContainerHash } from '../../workload/inplaceupdate/completion.ts';
import type { PubUpdateGuard } from '../../workload/pub/update-guard.ts';

/** An expectation check (@kruise/runtime's): act now, or wait `retryAfterMs` at most. */
export type ExpectationCheckLike = { satisfied: true } | { satisfied: false; retryAfterMs: number };

type Versioned = { metadata?: { uid?: string; resourceVersion?: string; namespace?: string; name?: string } };

/**
 * Scale expectations (@kruise/runtime's ScaleExpectations): pods and PVCs created or deleted by
 * name, per CloneSet key, until the cache shows them; dropped (logged, counted) past the timeout.
 */
export interface ScaleExpectationsLike {
  expectCreation(owner: string, name: string): void;
  expectDeletion(owner: string, name: string): void;
  creationObserved(owner: string, name?: string): void;
  deletionObserved(owner: string, name?: string): void;
  check(owner: string): ExpectationCheckLike;
  delete(owner: string): void;
}

/** ResourceVersion expectations (@kruise/runtime's): "do not act until the cache has seen my write". */
export interface ResourceVersionExpectationsLike {
  expect(obj: Versioned): void;
  observe(obj: Versioned): void;
  check(obj: Versioned): ExpectationCheckLike;
  delete(obj: Versioned): void;
}

/** What the CloneSet sync steps (scale, update, status, revisions) work with. */
export interface CloneSetDeps {
  client: KubeClient;
  /** Records an event on the CloneSet (upstream's reasons and messages). */
  event(cs: CloneSet, type: EventType, reason: string, message: string): void;
  scaleExpectations: ScaleExpectationsLike;
  resourceVersionExpectations: ResourceVersionExpectationsLike;
  gates: { enabled(name: string): boolean };
  kubeletHash: KubeletContainerHash;
  /** A node's labels (topologySpreadConstraints ranks of scale-in). */
  nodeLabels(name: string): Record<string, string> | undefined;
  /** Flag --cloneset-scaling-exclude-preparing-delete. */
  scalingExcludePreparingDelete: boolean;
  /** Asks a pod's PodUnavailableBudget before updating it (gate PodUnavailableBudgetUpdateGate). */
  pubUpdateGuard?: PubUpdateGuard;
  now: () => number;
  random: () => number;
  log: Logger;
}

/** The CloneSet's key `namespace/name` (upstream's GetControllerKey). */
export const cloneSetKey = (cs: CloneSet) => `${cs.metadata?.namespace}/${cs.metadata?.name}`;

/** Pods as the API takes them. */
export const asKube = (p: Pod) => p as unknown as KubeObject;

/**
 * The shortest of the requeue delays asked for during a reconcile (upstream's DurationStore):
 * zero and negative ones are ignored.
 */
export class RequeueAfter {
  private ms: number | undefined;

  /** Asks to look again after `ms`. */
  push(ms: number | undefined): void {
    if (ms === undefined || ms <= 0) return;
    if (this.ms === undefined || ms < this.ms) this.ms = ms;
  }

  /** The shortest delay asked for, if any. */
  get value(): number | undefined {
    return this.ms;
  }
}
