import { type Informer, type KubeObject, type Manager, Resources } from '@kruise/runtime';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * A workload as the finder's caches keep it: its identity, labels, annotations (but kubectl's last
 * applied configuration), owners, deletion and generation; spec.replicas, spec.selector, the
 * template's labels and spec.reserveOrdinals.
 */
export function trimWorkload(obj: KubeObject): KubeObject {
  const m = obj.metadata ?? {};
  const { [LAST_APPLIED]: _, ...annotations } = (m.annotations ?? {}) as Record<string, string>;
  const spec = obj.spec ?? {};
  const templateLabels = spec.template?.metadata?.labels;
  return {
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      generation: m.generation,
      ...(m.labels ? { labels: m.labels } : {}),
      ...(m.annotations ? { annotations } : {}),
      ...(m.ownerReferences ? { ownerReferences: m.ownerReferences } : {}),
      ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}),
    },
    spec: {
      ...(spec.replicas !== undefined ? { replicas: spec.replicas } : {}),
      ...(spec.selector !== undefined ? { selector: spec.selector } : {}),
      ...(templateLabels ? { template: { metadata: { labels: templateLabels } } } : {}),
      ...(spec.reserveOrdinals !== undefined ? { reserveOrdinals: spec.reserveOrdinals } : {}),
    },
  };
}

const trimmed = (manager: Manager, resource: (typeof Resources)[keyof typeof Resources]) =>
  manager.informers.informerFor<KubeObject>({ resource, transform: trimWorkload });

/** The manager's shared apps/v1 Deployment informer, trimmed to what the controller finder reads. */
export const trimmedDeployments = (manager: Manager): Informer<KubeObject> =>
  trimmed(manager, Resources.Deployment);

/** The manager's shared apps/v1 ReplicaSet informer, trimmed to what the controller finder reads. */
export const trimmedReplicaSets = (manager: Manager): Informer<KubeObject> =>
  trimmed(manager, Resources.ReplicaSet);

/** The manager's shared apps/v1 StatefulSet informer, trimmed to what the controller finder reads. */
export const trimmedStatefulSets = (manager: Manager): Informer<KubeObject> =>
  trimmed(manager, Resources.StatefulSet);

/** The manager's shared ReplicationController informer, trimmed to what the controller finder reads. */
export const trimmedReplicationControllers = (manager: Manager): Informer<KubeObject> =>
  trimmed(manager, Resources.ReplicationController);
