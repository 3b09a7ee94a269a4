import { nowRFC3339 } from '../../api/context.ts';
import type { KubeObject } from '../../registry/types.ts';

/**
 * A core/v1 Event about a workload object, as kube-controller-manager's event recorder writes it
 * (`kubectl describe` shows it): `component` is the controller (`statefulset-controller`,
 * `daemonset-controller`).
 */
export function workloadEvent(
  object: KubeObject,
  component: string,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
): KubeObject {
  const now = nowRFC3339();
  const nanos = BigInt(Date.now()) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000));
  return {
    metadata: {
      name: `${object.metadata?.name}.${nanos.toString(16)}`,
      namespace: object.metadata?.namespace,
    },
    involvedObject: {
      apiVersion: object.apiVersion,
      kind: object.kind,
      namespace: object.metadata?.namespace,
      name: object.metadata?.name,
      uid: object.metadata?.uid,
      resourceVersion: object.metadata?.resourceVersion,
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
