import { budgetsForPod, podReady } from '../controllers/disruption/budget.ts';
import { withDisruptionAllowed } from '../controllers/disruption/status.ts';
import { ApiError, forbidden, internalError, notFound } from '../errors.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';
import type { Store } from '../store/store.ts';
import { nowRFC3339, type WriteOptions } from './context.ts';
import type { ObjectService } from './objects.ts';
import { admitSubresourceCreate, subresourceBody } from './pod-subresource-post.ts';

/** More unconfirmed evictions than this in one budget are refused (MaxDisruptedPodSize). */
const MAX_DISRUPTED_PODS = 2000;
const EVICTION = { group: 'policy', version: 'v1', kind: 'Eviction' };
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

/** 429 TooManyRequests with a DisruptionBudget cause, as EvictionREST answers. */
function budgetRefusal(cause: string): ApiError {
  return new ApiError(429, 'TooManyRequests', VIOLATION, {
    causes: [{ reason: 'DisruptionBudget', message: cause }],
  });
}

/** checkAndDecrement's checks of the budget as stored now: throws when it forbids a disruption. */
function checkBudget(pdb: KubeObject): void {
  const name = pdb.metadata?.name;
  const status = pdb.status ?? {};
  if ((status.observedGeneration ?? 0) < (pdb.metadata?.generation ?? 0))
    throw budgetRefusal(`The disruption budget ${name} is still being processed by the server.`);
  if ((status.disruptionsAllowed ?? 0) < 0) throw forbidden('pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS)
    throw forbidden('DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if ((status.disruptionsAllowed ?? 0) === 0)
    throw budgetRefusal(
      `The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`,
    );
}

/** Pods whose eviction skips the budgets: finished, not yet running, or already being deleted (canIgnorePDB). */
function ignoresBudgets(pod: KubeObject): boolean {
  const phase = pod.status?.phase;
  return (
    phase === 'Succeeded' ||
    phase === 'Failed' ||
    phase === 'Pending' ||
    Boolean(pod.metadata?.deletionTimestamp)
  );
}

/**
 * POST pods/eviction (policy/v1 Eviction), as kube-apiserver's EvictionREST: admission for
 * `pods/eviction` CREATE, then the pod is deleted when no PodDisruptionBudget covers it, when
 * the budget allows a disruption (decremented, the pod recorded in disruptedPods), or when the
 * pod is unhealthy and the budget's unhealthyPodEvictionPolicy lets it go; else 429.
 */
export async function evictPod(
  store: Store,
  objects: ObjectService,
  podType: ResourceType,
  pdbType: ResourceType,
  namespace: string,
  name: string,
  body: KubeObject,
  options: WriteOptions,
): Promise<void> {
  const eviction = subresourceBody(body, EVICTION, namespace, name);
  const deleteOptions = eviction.deleteOptions ?? {};
  const dryRun =
    Boolean(options.dryRun) || (Array.isArray(deleteOptions.dryRun) && deleteOptions.dryRun.includes('All'));
  await admitSubresourceCreate(objects, podType, 'eviction', eviction, EVICTION, { ...options, dryRun });
  const pod = store.get('/pods', namespace, name)?.obj;
  if (!pod) throw notFound('pods', '', name);
  const remove = () =>
    objects.delete(podType, namespace, name, {
      ...options,
      subresource: '',
      dryRun,
      gracePeriodSeconds: deleteOptions.gracePeriodSeconds ?? undefined,
      preconditions: deleteOptions.preconditions,
      propagationPolicy: deleteOptions.propagationPolicy,
    });
  if (ignoresBudgets(pod)) {
    await remove();
    return;
  }
  const budgets = budgetsForPod(store, pod);
  if (budgets.length > 1)
    throw internalError(
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    );
  if (budgets.length === 0) {
    await remove();
    return;
  }
  const pdb = budgets[0]!;
  const status = pdb.status ?? {};
  if (!podReady(pod)) {
    const policy = pdb.spec?.unhealthyPodEvictionPolicy ?? 'IfHealthyBudget';
    if (policy === 'AlwaysAllow' || (status.currentHealthy ?? 0) >= (status.desiredHealthy ?? 0)) {
      await remove();
      return;
    }
  }
  const decrement = (cur: KubeObject): KubeObject => {
    checkBudget(cur);
    const next = { ...cur.status };
    next.disruptionsAllowed -= 1;
    next.disruptedPods = { ...next.disruptedPods, [name]: nowRFC3339() };
    if (next.disruptionsAllowed === 0)
      next.conditions = withDisruptionAllowed(
        next.conditions,
        'False',
        'InsufficientPods',
        '',
        cur.metadata?.generation ?? 0,
      );
    return { ...cur, status: next };
  };
  if (dryRun) checkBudget(pdb);
  else
    await objects.update(
      pdbType,
      namespace,
      pdb.metadata?.name,
      { patch: decrement },
      { user: options.user, subresource: 'status' },
    );
  await remove();
}
