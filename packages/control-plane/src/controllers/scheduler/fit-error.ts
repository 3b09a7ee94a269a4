import type { KubeObject } from '../../registry/types.ts';
import type { FilterFailure } from './filters.ts';

/** kube-scheduler's ErrNoNodesAvailable. */
export const NO_NODES_MESSAGE = 'no nodes available to schedule pods';

/** `N reason` strings sorted as Go's sort.Strings sorts them (byte order). */
function histogram(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts]
    .map(([reason, count]) => `${count} ${reason}`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .join(', ');
}

/**
 * The FitError message kube-scheduler writes into PodScheduled=False: the filter reasons per
 * node, then what preemption found. No pod is preempted here, so every node where preemption
 * could help reports that no victims were found.
 */
export function fitErrorMessage(pod: KubeObject, failures: FilterFailure[], preFilter?: string): string {
  const n = failures.length;
  let message = `0/${n} nodes are available: ${preFilter ?? histogram(failures.flatMap((f) => f.reasons))}.`;
  if (pod.spec?.preemptionPolicy === 'Never')
    return `${message} preemption: not eligible due to preemptionPolicy=Never.`;
  const preemption = failures.map((f) =>
    f.resolvable
      ? 'No preemption victims found for incoming pod'
      : 'Preemption is not helpful for scheduling',
  );
  message += ` preemption: 0/${n} nodes are available: ${histogram(preemption)}.`;
  return message;
}
