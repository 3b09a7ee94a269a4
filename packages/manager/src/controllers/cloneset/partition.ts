import { type IntOrString, scaledValue } from '@kruise/kube-compat';

/**
 * The number of pods a partition keeps at old revisions (upstream's CalculatePartitionReplicas):
 * a percentage is rounded up; a percentage other than "100%" that rounds to all of `replicas`
 * (when there are more than one) keeps one fewer, so at least one pod updates; clamped to
 * [0, replicas]. `replicas` defaults to 1.
 * @throws Error when the value cannot be parsed (the controller then logs and uses 0).
 */
export function partitionReplicas(partition: IntOrString | undefined, replicas: number | undefined): number {
  if (partition === undefined || partition === null) return 0;
  const total = replicas ?? 1;
  let value = scaledValue(partition, total, true);
  if (total > 1 && value === total && typeof partition === 'string' && partition !== '100%')
    value = total - 1;
  return Math.max(Math.min(value, total), 0);
}
