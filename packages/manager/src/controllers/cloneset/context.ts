import type { CloneSet } from '@kruise/api';
import type { EventType, KubeClient, KubeObject, Logger } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KubeletContainerHash } from '../../workload/inplaceupdate/completion.ts';

/** Scale expectations: pods and PVCs created or deleted by name, per CloneSet key, until the cache sees them. */
export interface ScaleExpectationsLike {
  expect(key: string, action: 'create' | 'delete', name: string): void;
  observe(key: string, action: 'create' | 'delete', name: string): void;
  /** Whether nothing is pending, and for how long something has been (ms). */
  satisfied(key: string): { satisfied: boolean; unsatisfiedMs: number };
  delete(key: string): void;
}

/** ResourceVersion expectations: "do not act until the cache has seen my write". */
export interface ResourceVersionExpectationsLike {
  expect(obj: { metadata?: { uid?: string; resourceVersion?: string } }): void;
  observe(obj: { metadata?: { uid?: string; resourceVersion?: string } }): void;
  satisfied(obj: { metadata?: { uid?: string; resourceVersion?: string } }): {
    satisfied: boolean;
    unsatisfiedMs: number;
  };
  delete(obj: { metadata?: { uid?: string } }): void;
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
  /** How long an unsatisfied expectation holds a CloneSet (flag --expectation-timeout, 5 min). */
  expectationTimeoutMs: number;
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
