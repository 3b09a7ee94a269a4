import { intPercentValue } from './intstr.ts';

/** What a rolling-update count reads of a DaemonSet (apps/v1 or Kruise's Advanced DaemonSet). */
export interface DaemonRollingFields {
  [field: string]: unknown;
  spec?: {
    updateStrategy?: {
      type?: string;
      rollingUpdate?: { maxSurge?: number | string | null; maxUnavailable?: number | string | null };
    };
  };
}

/**
 * A DaemonSet's maxSurge or maxUnavailable of `nodes`, rounded up as kube-controller-manager
 * rounds it; 0 when the strategy is not a rolling update, or the field is unset or invalid.
 */
export function rollingCount(
  ds: DaemonRollingFields,
  field: 'maxSurge' | 'maxUnavailable',
  nodes: number,
): number {
  const strategy = ds.spec?.updateStrategy;
  if ((strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return 0;
  const value = strategy?.rollingUpdate?.[field];
  if (value === undefined || value === null) return 0;
  try {
    return intPercentValue(value, nodes, true);
  } catch {
    return 0;
  }
}
