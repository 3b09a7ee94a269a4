import type { FeatureGates } from '@kruise/api';
import { type AdmissionHandler, type AdmissionRequest, allowed, denied, patched } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { injectKruisePodReadyGate } from '../../workload/podreadiness/readiness-gate.ts';
import { goDecodeError } from '../../workload/revision/go-encode.ts';
import { BadPodError, injectLaunchPriority } from './launch-priority.ts';
import { type RelatedPubLookups, stampRelatedPub } from './related-pub.ts';
import { injectSidecarSets } from './sidecarset/inject.ts';
import { NO_SIDECARSETS, type SidecarSetLookups } from './sidecarset/lookups.ts';

/**
 * One step of the pod pipeline: changes the pod (returning true) or leaves it (false), at once or
 * through a promise; throws (or rejects) → 500.
 */
export interface PodMutation {
  name: string;
  mutate(pod: Pod, request: AdmissionRequest): boolean | Promise<boolean>;
}

/** What the pod pipeline reads besides the request. */
export interface PodWebhookDeps {
  /** SidecarSets, namespaces and SidecarSet revisions (none unless given). */
  sidecarSets?: SidecarSetLookups;
  /** Draws in [0, 1) (launch priority, Partial SidecarSet injection). */
  random?: () => number;
  /** The time of the SidecarSet hash annotations. */
  now?: () => Date;
  /** PodUnavailableBudgets and the workloads of pods (no related-pub step unless given). */
  relatedPub?: RelatedPubLookups;
}

/**
 * The steps of `mpod.kb.io` in upstream's fixed order. Upstream runs, in this order: the
 * KruisePodReady readiness gate, WorkloadSpread, SidecarSet, container launch priority (after
 * SidecarSet, so injected sidecars may carry priorities), PodUnavailableBudget's related-pub
 * annotation, PersistentPodState, enhanced liveness probe and serverless PodProbeMarker. Only the
 * implemented ones are listed; each later feature inserts its step at its place here.
 */
export function podMutations(gates: FeatureGates, deps: PodWebhookDeps = {}): PodMutation[] {
  const random = deps.random ?? Math.random;
  const lookups = deps.sidecarSets ?? NO_SIDECARSETS;
  return [
    {
      name: 'KruisePodReadinessGate',
      mutate: (pod) => injectKruisePodReadyGate(pod, gates.enabled('KruisePodReadinessGate')),
    },
    // WorkloadSpread (gate WorkloadSpread) goes here.
    {
      name: 'SidecarSet',
      mutate: (pod) =>
        injectSidecarSets(pod, { lookups, gates, random, ...(deps.now ? { now: deps.now } : {}) }),
    },
    { name: 'ContainerLaunchPriority', mutate: (pod) => injectLaunchPriority(pod, random) },
    ...(deps.relatedPub &&
    (gates.enabled('PodUnavailableBudgetDeleteGate') || gates.enabled('PodUnavailableBudgetUpdateGate'))
      ? [{ name: 'PodUnavailableBudget', mutate: (pod: Pod) => stampRelatedPub(pod, deps.relatedPub!) }]
      : []),
    // PersistentPodState, EnhancedLivenessProbe and PodProbeMarker on serverless go here, in that order.
  ];
}

/**
 * The pod mutating webhook `mpod.kb.io` (CREATE on pods; the configuration skips namespaces
 * labelled `control-plane`): runs the pipeline on one copy of the pod and answers one JSON patch.
 */
export function mutatePod(gates: FeatureGates, deps: PodWebhookDeps = {}): AdmissionHandler {
  const steps = podMutations(gates, deps);
  return async (request) => {
    if (request.operation !== 'CREATE' || request.subResource) return allowed();
    const raw = request.object;
    if (raw === undefined || raw === null) return denied(400, 'there is no content to decode');
    if (typeof raw !== 'object' || Array.isArray(raw))
      return denied(
        400,
        `json: cannot unmarshal ${Array.isArray(raw) ? 'array' : typeof raw} into Go value of type v1.Pod`,
      );
    const undecodable = goDecodeError(raw, 'Pod', 'Pod', '');
    if (undecodable) return denied(400, undecodable);
    // The request's object is this handler's own (parsed from the review): it is the base the patch
    // is computed from, and the steps change one copy of it. The namespace of the request stands in
    // for a missing one; it is not written back.
    const base = raw as Pod;
    base.metadata ??= {};
    if (!base.metadata.namespace && request.namespace) base.metadata.namespace = request.namespace;
    const pod = JSON.parse(JSON.stringify(base)) as Pod;
    let changed = false;
    for (const step of steps) {
      try {
        if (await step.mutate(pod, request)) changed = true;
      } catch (err) {
        return denied(err instanceof BadPodError ? 400 : 500, (err as Error).message);
      }
    }
    return changed ? patched(base, pod) : allowed();
  };
}
