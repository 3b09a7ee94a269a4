import { selectorMatches } from '../../admission/matching.ts';
import { readJsonPath } from '../../registry/json-path.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { Store } from '../../store/store.ts';

/** PodDisruptionBudgets live here. */
export const PDB_RESOURCE = 'policy/poddisruptionbudgets';
/** An eviction counts against the budget until the pod is deleted, or for this long (DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

/** Whether a budget covers a pod (policy/v1: an empty selector covers every pod, a missing one none). */
export function budgetCovers(pdb: KubeObject, pod: KubeObject): boolean {
  const selector = pdb.spec?.selector;
  if (!selector) return false;
  return selectorMatches(selector, pod.metadata?.labels ?? {});
}

/** The budgets of the pod's namespace that cover it. */
export function budgetsForPod(store: Store, pod: KubeObject): KubeObject[] {
  return store
    .list(PDB_RESOURCE, pod.metadata?.namespace)
    .map((e) => e.obj)
    .filter((pdb) => budgetCovers(pdb, pod));
}

/** IsPodReady. */
export function podReady(pod: KubeObject): boolean {
  return (pod.status?.conditions ?? []).some((c: any) => c?.type === 'Ready' && c.status === 'True');
}

/** GetScaledValueFromIntOrPercent (rounding up). */
export function scaledValue(value: unknown, total: number): number {
  if (typeof value === 'number') return value;
  const text = String(value);
  return text.endsWith('%') ? Math.ceil((Number(text.slice(0, -1)) * total) / 100) : Number(text);
}

/** The replicas a pod's controller asks for: the Deployment's for a ReplicaSet it owns, else the controller's scale. */
function controllerScale(
  store: Store,
  registry: ResourceRegistry,
  namespace: string,
  ref: any,
): { uid: string; replicas: number } {
  const type = registry.byKind(String(ref.apiVersion ?? ''), String(ref.kind ?? ''));
  const owner = type && store.get(`${type.group}/${type.plural}`, namespace, ref.name)?.obj;
  if (!type || !owner || owner.metadata?.uid !== ref.uid)
    throw new Error(`found no controllers for pod's controller ${ref.kind}/${ref.name}`);
  const parent = (owner.metadata?.ownerReferences ?? []).find((r: any) => r?.controller);
  if (type.kind === 'ReplicaSet' && parent?.kind === 'Deployment')
    return controllerScale(store, registry, namespace, parent);
  const path =
    type.scale?.specReplicasPath ?? (type.subresources.includes('scale') ? '.spec.replicas' : undefined);
  if (!path) throw new Error(`${type.kind} ${ref.name} has no scale subresource`);
  return { uid: String(ref.uid), replicas: Number(readJsonPath(owner, path) ?? 1) };
}

/** getExpectedScale: the sum of the scales of the pods' controllers. */
function expectedScale(
  store: Store,
  registry: ResourceRegistry,
  namespace: string,
  pods: KubeObject[],
): number {
  const seen = new Set<string>();
  const scales = new Map<string, number>();
  for (const pod of pods) {
    const ref = (pod.metadata?.ownerReferences ?? []).find((r: any) => r?.controller);
    if (!ref) throw new Error(`found no controller ref for pod "${pod.metadata?.name}"`);
    if (seen.has(ref.uid)) continue;
    seen.add(ref.uid);
    const { uid, replicas } = controllerScale(store, registry, namespace, ref);
    scales.set(uid, replicas);
  }
  return [...scales.values()].reduce((a, b) => a + b, 0);
}

/** What the disruption controller computes for one budget. */
export interface BudgetCounts {
  expectedPods: number;
  desiredHealthy: number;
  currentHealthy: number;
  disruptionsAllowed: number;
  disruptedPods: Record<string, string>;
}

/** The counts of kube-controller-manager's disruption controller; throws when the expected scale is unknown. */
export function countBudget(
  store: Store,
  registry: ResourceRegistry,
  pdb: KubeObject,
  now: number,
): BudgetCounts {
  const namespace = pdb.metadata?.namespace;
  const pods = store
    .list('/pods', namespace)
    .map((e) => e.obj)
    .filter((p) => budgetCovers(pdb, p));
  const spec = pdb.spec ?? {};
  let expectedPods = 0;
  let desiredHealthy = 0;
  if (spec.maxUnavailable != null) {
    expectedPods = expectedScale(store, registry, namespace, pods);
    desiredHealthy = Math.max(0, expectedPods - scaledValue(spec.maxUnavailable, expectedPods));
  } else if (spec.minAvailable != null) {
    if (typeof spec.minAvailable === 'number') {
      desiredHealthy = spec.minAvailable;
      expectedPods = pods.length;
    } else {
      expectedPods = expectedScale(store, registry, namespace, pods);
      desiredHealthy = scaledValue(spec.minAvailable, expectedPods);
    }
  }
  const byName = new Map(pods.map((p) => [p.metadata?.name, p]));
  const disruptedPods: Record<string, string> = {};
  for (const [name, at] of Object.entries<string>(pdb.status?.disruptedPods ?? {})) {
    const pod = byName.get(name);
    if (!pod || pod.metadata?.deletionTimestamp) continue;
    if (Date.parse(at) + DELETION_TIMEOUT_MS > now) disruptedPods[name] = at;
  }
  let currentHealthy = 0;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp || disruptedPods[pod.metadata?.name]) continue;
    if (podReady(pod)) currentHealthy++;
  }
  const allowed = currentHealthy - desiredHealthy;
  const disruptionsAllowed = expectedPods <= 0 || allowed <= 0 ? 0 : allowed;
  return { expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed, disruptedPods };
}
