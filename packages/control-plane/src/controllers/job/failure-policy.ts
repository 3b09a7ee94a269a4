import type { KubeObject } from '../../registry/types.ts';

/** A podFailurePolicy rule's action. */
export type FailurePolicyAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

/** What a failed pod's match against `spec.podFailurePolicy` says. */
export interface FailurePolicyMatch {
  /** The Job's failure message, for a FailJob rule. */
  failJobMessage?: string;
  /** Whether the failure counts towards backoffLimit (false for an Ignore rule). */
  counts: boolean;
  /** The matched rule's action, if one matched. */
  action?: FailurePolicyAction;
}

interface ContainerStatus {
  name: string;
  state?: { terminated?: { exitCode?: number } };
}

interface ExitCodeRule {
  containerName?: string;
  operator: 'In' | 'NotIn';
  values: number[];
}

function exitCodeMatches(
  statuses: ContainerStatus[] | undefined,
  rule: ExitCodeRule,
): ContainerStatus | undefined {
  for (const s of statuses ?? []) {
    const code = s.state?.terminated?.exitCode;
    if (code === undefined || code === 0) continue;
    if (rule.containerName && rule.containerName !== s.name) continue;
    const listed = rule.values.includes(code);
    if (rule.operator === 'In' ? listed : rule.operator === 'NotIn' && !listed) return s;
  }
  return undefined;
}

/**
 * matchPodFailurePolicy: the first rule whose onExitCodes (a non-zero exit code of a container,
 * then of an init container) or onPodConditions matches decides; with no match the failure counts.
 */
export function matchFailurePolicy(job: KubeObject, pod: KubeObject): FailurePolicyMatch {
  const rules: KubeObject[] = job.spec?.podFailurePolicy?.rules ?? [];
  const where = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
  for (const [index, rule] of rules.entries()) {
    const action = rule.action as FailurePolicyAction;
    let message: string | undefined;
    if (rule.onExitCodes) {
      const status =
        exitCodeMatches(pod.status?.containerStatuses, rule.onExitCodes) ??
        exitCodeMatches(pod.status?.initContainerStatuses, rule.onExitCodes);
      if (!status) continue;
      message = `Container ${status.name} for pod ${where} failed with exit code ${status.state?.terminated?.exitCode} matching ${action} rule at index ${index}`;
    } else if (rule.onPodConditions) {
      const patterns: { type: string; status?: string }[] = rule.onPodConditions;
      const condition = (pod.status?.conditions ?? []).find((c: { type: string; status: string }) =>
        patterns.some((p) => p.type === c.type && (p.status ?? 'True') === c.status),
      );
      if (!condition) continue;
      message = `Pod ${where} has condition ${condition.type} matching ${action} rule at index ${index}`;
    } else continue;
    if (action === 'Ignore') return { counts: false, action };
    if (action === 'FailJob') return { counts: true, action, failJobMessage: message };
    if (action === 'Count' || action === 'FailIndex') return { counts: true, action };
  }
  return { counts: true };
}
