import { type FeatureGates, POD_RELATED_PUB_ANNOTATION, type PubOperation } from '@kruise/api';
import {
  type AdmissionHandler,
  type AdmissionRequest,
  type AdmissionResponse,
  allowed,
  denied,
} from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podUnavailableChanged } from '../../workload/pub/pod-availability.ts';
import { decidePodDisruption, type PodDisruptionDeps } from '../../workload/pub/pod-disruption.ts';
import { canResizeInPlace } from '../../workload/pub/resize.ts';
import { goDecodeError } from '../../workload/revision/go-encode.ts';

/** What the pod validating webhook reads besides the request. */
export interface PodValidationDeps extends PodDisruptionDeps {
  /** A pod by namespace and name (an eviction names its pod; the caches first, then the API). */
  pod(namespace: string, name: string): Promise<Pod | undefined>;
}

/** A request's pod, or a 400 answer with the decoder's words. */
function decodePod(raw: unknown): { pod: Pod } | { response: AdmissionResponse } {
  if (raw === undefined || raw === null) return { response: denied(400, 'there is no content to decode') };
  if (typeof raw !== 'object' || Array.isArray(raw))
    return {
      response: denied(
        400,
        `json: cannot unmarshal ${Array.isArray(raw) ? 'array' : typeof raw} into Go value of type v1.Pod`,
      ),
    };
  const undecodable = goDecodeError(raw, 'Pod', 'Pod', '');
  return undecodable ? { response: denied(400, undecodable) } : { pod: raw as Pod };
}

/** Whether an eviction asks for a dry run in its own delete options. */
const evictionDryRun = (eviction: any) =>
  Array.isArray(eviction?.deleteOptions?.dryRun) && eviction.deleteOptions.dryRun.includes('All');

/** The pod and operation a request disrupts, an answer already, or nothing to check. */
async function disruptionOf(
  request: AdmissionRequest,
  deps: PodValidationDeps,
): Promise<{ pod: Pod; operation: PubOperation; dryRun: boolean } | { response: AdmissionResponse }> {
  const dryRun = request.dryRun === true;
  if (request.operation === 'UPDATE') {
    const next = decodePod(request.object);
    if ('response' in next) return next;
    if (!next.pod.metadata?.annotations?.[POD_RELATED_PUB_ANNOTATION]) return { response: allowed() };
    const old = decodePod(request.oldObject);
    if ('response' in old) return old;
    if (!podUnavailableChanged(old.pod, next.pod)) return { response: allowed() };
    return { pod: old.pod, operation: canResizeInPlace(old.pod, next.pod) ? 'RESIZE' : 'UPDATE', dryRun };
  }
  if (request.operation === 'DELETE') {
    if (request.subResource) return { response: allowed() };
    const old = decodePod(request.oldObject);
    if ('response' in old) return old;
    return { pod: old.pod, operation: 'DELETE', dryRun };
  }
  if (request.operation === 'CREATE' && request.subResource === 'eviction') {
    const eviction = request.object;
    if (eviction === undefined || eviction === null)
      return { response: denied(400, 'there is no content to decode') };
    if (typeof eviction !== 'object' || Array.isArray(eviction))
      return {
        response: denied(
          400,
          `json: cannot unmarshal ${Array.isArray(eviction) ? 'array' : typeof eviction} into Go value of type policy.Eviction`,
        ),
      };
    const pod = await deps.pod(request.namespace ?? '', request.name ?? '');
    // gone already: nothing to protect, and the API server answers its own 404 (upstream answers
    // 400 here, which `kubectl drain` takes for a failure rather than a pod that went meanwhile)
    if (!pod) return { response: allowed() };
    return { pod, operation: 'EVICT', dryRun: dryRun || evictionDryRun(eviction) };
  }
  return { response: allowed() };
}

/**
 * The pod validating webhooks `vpod.kb.io` (UPDATE, DELETE on pods) and `vpodeviction.kb.io`
 * (CREATE on pods/eviction), one handler as upstream's `/validate-pod`: PodUnavailableBudget checks
 * of in-place updates (gate PodUnavailableBudgetUpdateGate), deletions and evictions (gate
 * PodUnavailableBudgetDeleteGate). A refusal answers 403 Forbidden with upstream's words; an
 * eviction's refusal answers 429 TooManyRequests instead (beyond upstream), as a
 * PodDisruptionBudget's does, so `kubectl drain` waits and tries again rather than failing.
 * WorkloadSpread's bookkeeping of deletions and evictions goes before the budget, when it exists.
 */
export function validatePod(gates: FeatureGates, deps: PodValidationDeps): AdmissionHandler {
  const updates = gates.enabled('PodUnavailableBudgetUpdateGate');
  const deletes = gates.enabled('PodUnavailableBudgetDeleteGate');
  return async (request) => {
    if (request.operation === 'DELETE' && (request.oldObject === undefined || request.oldObject === null))
      return allowed();
    if (request.operation === 'UPDATE' ? !updates : !deletes) return allowed();
    let found: Awaited<ReturnType<typeof disruptionOf>>;
    try {
      found = await disruptionOf(request, deps);
    } catch (err) {
      return denied(400, (err as Error).message);
    }
    if ('response' in found) return found.response;
    const pod = found.pod;
    pod.metadata ??= {};
    pod.metadata.namespace ||= request.namespace ?? '';
    const decision = await decidePodDisruption(
      pod,
      found.operation,
      request.userInfo?.username ?? '',
      found.dryRun,
      deps,
    );
    if (decision.allowed) return allowed();
    return found.operation === 'EVICT'
      ? { allowed: false, status: { code: 429, reason: 'TooManyRequests', message: decision.message } }
      : { allowed: false, status: { code: 403, reason: 'Forbidden', message: decision.message } };
  };
}
