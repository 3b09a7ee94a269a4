import { POD_REVISION_LABEL } from '@kruise/kube-compat/controller-revision';
import { daemonTolerations } from '@kruise/kube-compat/daemon-placement';
import { replaceNodeNameAffinity, targetNodeName } from '@kruise/kube-compat/daemon-pod-node';
import type { KubeObject } from '../../registry/types.ts';
import { daemonSetRef } from './revisions.ts';

/**
 * A daemon pod for `node` (the DaemonSet controller's syncNodes): the template with the
 * `controller-revision-hash` label, the daemon tolerations, a required node affinity on the node's
 * name (the scheduler binds it), named `<ds>-<random>`, controlled by the DaemonSet.
 */
export function newDaemonPod(ds: KubeObject, node: string, hash: string): KubeObject {
  const t = structuredClone(ds.spec?.template ?? {});
  const spec = t.spec ?? {};
  spec.tolerations = daemonTolerations(spec);
  spec.affinity = replaceNodeNameAffinity(spec.affinity, node);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${ds.metadata?.name}-`,
      labels: { ...(t.metadata?.labels ?? {}), [POD_REVISION_LABEL]: hash },
      ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
      ...(t.metadata?.finalizers?.length ? { finalizers: [...t.metadata.finalizers] } : {}),
      ownerReferences: [daemonSetRef(ds)],
    },
    spec,
  };
}

/** The DaemonSet's pods by the node each is for (getNodesToDaemonPods); pods naming no node are left out. */
export function podsByNode(pods: KubeObject[]): Map<string, KubeObject[]> {
  const out = new Map<string, KubeObject[]>();
  for (const pod of pods) {
    let node: string;
    try {
      node = targetNodeName(pod);
    } catch {
      continue;
    }
    out.set(node, [...(out.get(node) ?? []), pod]);
  }
  return out;
}

/** Whether the pod runs the revision of `hash` (IsPodUpdated). */
export const isPodUpdated = (pod: KubeObject, hash: string): boolean =>
  pod.metadata?.labels?.[POD_REVISION_LABEL] === hash;

const created = (p: KubeObject) => String(p.metadata?.creationTimestamp ?? '');

/** Bound pods first, then oldest first, then by name (podByCreationTimestampAndPhase). */
export function byCreationAndPhase(a: KubeObject, b: KubeObject): number {
  const boundA = !!a.spec?.nodeName;
  const boundB = !!b.spec?.nodeName;
  if (boundA !== boundB) return boundA ? -1 : 1;
  return (
    created(a).localeCompare(created(b)) || String(a.metadata?.name).localeCompare(String(b.metadata?.name))
  );
}
