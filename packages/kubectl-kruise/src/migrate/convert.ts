import type { KubeObject } from '@kruise/runtime/kube/client';

/** Annotations of a Deployment that describe the Deployment itself and are not carried over. */
const DEPLOYMENT_ONLY_ANNOTATIONS = [
  'deployment.kubernetes.io/revision',
  'kubectl.kubernetes.io/last-applied-configuration',
];

/**
 * kruise-tools' DeploymentToCloneSet: a CloneSet named `name` with the Deployment's labels,
 * annotations (less the Deployment's own revision and kubectl's last-applied copy), finalizers,
 * selector, template, revisionHistoryLimit and minReadySeconds; update strategy ReCreate with the
 * Deployment's paused, maxUnavailable and maxSurge. Replicas are the Deployment's with `copy`,
 * else 0 (kruise-tools documents 0 and copies them anyway).
 */
export function deploymentToCloneSet(deployment: KubeObject, name: string, copy: boolean): KubeObject {
  const d = structuredClone(deployment);
  const annotations = { ...(d.metadata?.annotations ?? {}) };
  for (const key of DEPLOYMENT_ONLY_ANNOTATIONS) delete annotations[key];
  const rolling = d.spec?.strategy?.rollingUpdate ?? {};
  const present = <T>(v: T | undefined | null): v is T => v !== undefined && v !== null;
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: {
      namespace: d.metadata?.namespace,
      name,
      ...(d.metadata?.labels ? { labels: d.metadata.labels } : {}),
      ...(Object.keys(annotations).length ? { annotations } : {}),
      ...(d.metadata?.finalizers?.length ? { finalizers: d.metadata.finalizers } : {}),
    },
    spec: {
      replicas: copy ? (d.spec?.replicas ?? 1) : 0,
      selector: d.spec?.selector,
      template: d.spec?.template,
      ...(present(d.spec?.revisionHistoryLimit) ? { revisionHistoryLimit: d.spec.revisionHistoryLimit } : {}),
      ...(d.spec?.minReadySeconds ? { minReadySeconds: d.spec.minReadySeconds } : {}),
      updateStrategy: {
        type: 'ReCreate',
        ...(d.spec?.paused ? { paused: true } : {}),
        ...(present(rolling.maxUnavailable) ? { maxUnavailable: rolling.maxUnavailable } : {}),
        ...(present(rolling.maxSurge) ? { maxSurge: rolling.maxSurge } : {}),
      },
    },
  };
}
