import { nowRFC3339 } from '../../api/context.ts';
import type { KubeObject } from '../../registry/types.ts';
import { specReplicas } from './replicas.ts';

/** A Deployment condition: Available, Progressing or ReplicaFailure. */
export interface DeploymentCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The reasons of the Progressing and Available conditions, as kube-controller-manager writes them. */
export const Reasons = {
  NewReplicaSetCreated: 'NewReplicaSetCreated',
  FoundNewReplicaSet: 'FoundNewReplicaSet',
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  NewReplicaSetAvailable: 'NewReplicaSetAvailable',
  ProgressDeadlineExceeded: 'ProgressDeadlineExceeded',
  ReplicaSetCreateError: 'ReplicaSetCreateError',
  DeploymentPaused: 'DeploymentPaused',
  DeploymentResumed: 'DeploymentResumed',
  MinimumReplicasAvailable: 'MinimumReplicasAvailable',
  MinimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

/** NewDeploymentCondition: both times now. */
export function newCondition(
  type: string,
  status: DeploymentCondition['status'],
  reason: string,
  message: string,
): DeploymentCondition {
  const now = nowRFC3339();
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/** The condition of `type` in a status. */
export function conditionOf(status: any, type: string): DeploymentCondition | undefined {
  return (status?.conditions ?? []).find((c: DeploymentCondition) => c?.type === type);
}

/**
 * SetDeploymentCondition: nothing when status and reason are unchanged; otherwise replaced (moved
 * last), keeping lastTransitionTime when only the reason changed.
 */
export function setCondition(status: any, condition: DeploymentCondition): void {
  const current = conditionOf(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  if (current && current.status === condition.status)
    condition.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [
    ...(status.conditions ?? []).filter((c: DeploymentCondition) => c.type !== condition.type),
    condition,
  ];
}

/** RemoveDeploymentCondition. */
export function removeCondition(status: any, type: string): void {
  if (!status.conditions) return;
  status.conditions = status.conditions.filter((c: DeploymentCondition) => c.type !== type);
  if (!status.conditions.length) delete status.conditions;
}

/** HasProgressDeadline: progressDeadlineSeconds set and not MaxInt32. */
export function hasProgressDeadline(d: KubeObject): boolean {
  const s = d.spec?.progressDeadlineSeconds;
  return s !== undefined && s !== null && s !== 2147483647;
}

/** DeploymentComplete: every replica updated and available, none old, the latest generation seen. */
export function deploymentComplete(d: KubeObject, status: any): boolean {
  const replicas = specReplicas(d);
  return (
    Number(status.updatedReplicas ?? 0) === replicas &&
    Number(status.replicas ?? 0) === replicas &&
    Number(status.availableReplicas ?? 0) === replicas &&
    Number(status.observedGeneration ?? 0) >= Number(d.metadata?.generation ?? 0)
  );
}

/** DeploymentProgressing: more updated, ready or available pods than before, or fewer old ones. */
export function deploymentProgressing(d: KubeObject, status: any): boolean {
  const old = d.status ?? {};
  const n = (s: any, f: string) => Number(s?.[f] ?? 0);
  return (
    n(status, 'updatedReplicas') > n(old, 'updatedReplicas') ||
    n(status, 'replicas') - n(status, 'updatedReplicas') < n(old, 'replicas') - n(old, 'updatedReplicas') ||
    n(status, 'readyReplicas') > n(old, 'readyReplicas') ||
    n(status, 'availableReplicas') > n(old, 'availableReplicas')
  );
}

/** DeploymentTimedOut: no progress since the Progressing condition's lastUpdateTime for progressDeadlineSeconds. */
export function deploymentTimedOut(d: KubeObject, status: any, now = Date.now()): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = conditionOf(status, 'Progressing');
  if (!c || c.reason === Reasons.NewReplicaSetAvailable) return false;
  if (c.reason === Reasons.ProgressDeadlineExceeded) return true;
  const from = Date.parse(c.lastUpdateTime ?? '');
  return !Number.isNaN(from) && from + Number(d.spec.progressDeadlineSeconds) * 1000 < now;
}
