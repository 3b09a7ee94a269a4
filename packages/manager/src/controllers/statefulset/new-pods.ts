import type { StatefulSet } from '@kruise/api';
import { podName, updateIdentity, updateStorage } from '@kruise/kube-compat/statefulset-identity';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  LIFECYCLE_STATE_LABEL,
  LIFECYCLE_TIMESTAMP_ANNOTATION,
  type LifecycleState,
} from '../../workload/lifecycle/state.ts';
import { injectKruisePodReadyGate } from '../../workload/podreadiness/readiness-gate.ts';
import { controllerRef } from '../../workload/revision/history.ts';
import { defaultRevisionAdapter } from '../../workload/revision/pod-revision.ts';
import { STATEFULSET_API_VERSION } from './revisions.ts';

/** How new pods are written. */
export interface NewPodOptions {
  /** Gate PodIndexLabel: the `apps.kubernetes.io/pod-index` label. */
  podIndexLabel: boolean;
  /** Gate PodWebhook: the KruisePodReady gate the pod webhook would add, written at once (no patch per create). */
  podReadyGate: boolean;
  /** The lifecycle state it starts in (PreparingNormal, or Normal without a preNormal hook). */
  lifecycleState: LifecycleState;
  now: string;
}

/** The set's controller reference. */
export function setRef(set: StatefulSet) {
  return controllerRef({
    apiVersion: STATEFULSET_API_VERSION,
    kind: 'StatefulSet',
    metadata: { name: set.metadata?.name ?? '', uid: set.metadata?.uid ?? '' },
  });
}

/**
 * A new pod of the set for `ordinal` at `revision` (upstream's newStatefulSetPod and
 * setPodRevision): the template's labels, annotations, finalizers and spec, the set's controller
 * reference, its identity (name, pod-name and pod-index labels, hostname, subdomain), a volume per
 * claim template, the revision label and the lifecycle state.
 */
export function newStatefulSetPod(
  set: StatefulSet,
  ordinal: number,
  revision: string,
  opts: NewPodOptions,
): Pod {
  const t = structuredClone(set.spec?.template ?? {});
  const name = podName(set, ordinal);
  const labels = { ...(t.metadata?.labels ?? {}) };
  defaultRevisionAdapter.write(labels, revision);
  labels[LIFECYCLE_STATE_LABEL] = opts.lifecycleState;
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata?.namespace,
      labels,
      annotations: { ...(t.metadata?.annotations ?? {}), [LIFECYCLE_TIMESTAMP_ANNOTATION]: opts.now },
      ...(t.metadata?.finalizers?.length ? { finalizers: [...t.metadata.finalizers] } : {}),
      ownerReferences: [setRef(set)],
    },
    spec: {
      ...(t.spec ?? { containers: [] }),
      hostname: name,
      subdomain: set.spec?.serviceName || undefined,
    },
  };
  if (!pod.spec!.subdomain) delete pod.spec!.subdomain;
  updateIdentity(set, pod, opts.podIndexLabel);
  updateStorage(set, pod);
  if (opts.podReadyGate) injectKruisePodReadyGate(pod, true);
  return pod;
}
