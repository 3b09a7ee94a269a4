import { nowRFC3339 } from '../../api/context.ts';
import type { KubeObject } from '../../registry/types.ts';

/**
 * The core/v1 Event kube-scheduler records when a pod does not fit (`kubectl describe pod`
 * shows it): Warning FailedScheduling from default-scheduler with the FitError message.
 */
export function failedSchedulingEvent(pod: KubeObject, message: string): KubeObject {
  const now = nowRFC3339();
  const nanos = BigInt(Date.now()) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000));
  return {
    metadata: { name: `${pod.metadata?.name}.${nanos.toString(16)}`, namespace: pod.metadata?.namespace },
    involvedObject: {
      apiVersion: 'v1',
      kind: 'Pod',
      namespace: pod.metadata?.namespace,
      name: pod.metadata?.name,
      uid: pod.metadata?.uid,
      resourceVersion: pod.metadata?.resourceVersion,
    },
    reason: 'FailedScheduling',
    message,
    type: 'Warning',
    source: { component: 'default-scheduler' },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
    action: 'Scheduling',
    reportingComponent: 'default-scheduler',
    reportingInstance: 'default-scheduler',
  };
}
