import { nowRFC3339 } from '../../api/context.ts';
import type { KubeObject } from '../../registry/types.ts';

/**
 * A core/v1 Event about `subject` from `component` (kube-controller-manager's job-controller or
 * ttl-after-finished-controller), as `kubectl describe` and `kubectl get events` show it.
 */
export function controllerEvent(
  component: string,
  subject: KubeObject,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
): KubeObject {
  const now = nowRFC3339();
  const nanos = BigInt(Date.now()) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000));
  return {
    metadata: {
      name: `${subject.metadata?.name}.${nanos.toString(16)}`,
      namespace: subject.metadata?.namespace,
    },
    involvedObject: {
      apiVersion: subject.apiVersion ?? 'batch/v1',
      kind: subject.kind ?? 'Job',
      namespace: subject.metadata?.namespace,
      name: subject.metadata?.name,
      uid: subject.metadata?.uid,
      resourceVersion: subject.metadata?.resourceVersion,
    },
    reason,
    message,
    type,
    source: { component },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
    reportingComponent: component,
    reportingInstance: '',
  };
}
