import {
  KRUISE_IGNORE_CONTAINER_EXIT_CODE_ENV,
  KRUISE_TERMINATE_SIDECAR_ENV,
  KRUISE_TERMINATE_SIDECAR_WITH_IMAGE_ENV,
  KruiseResources,
  type NodeImage,
  POD_PUB_NO_PROTECT_ANNOTATION,
  POD_RELATED_PUB_ANNOTATION,
} from '@kruise/api';
import {
  type Informer,
  type KubeObject,
  type Manager,
  Resources,
  withoutManagedFields,
} from '@kruise/runtime';
import type { Container, ContainerStatus, Namespace, Node, Pod } from 'kubernetes-types/core/v1.js';
import {
  CONTAINER_LAUNCH_BARRIER_ENV,
  CONTAINER_LAUNCH_PRIORITY_COMPLETED_ANNOTATION,
} from './workload/launch-priority.ts';
import { SIDECAR_INJECTED_ENV, SIDECARSET_INJECTED_LIST_ANNOTATION } from './workload/sidecarset/keys.ts';

/** What the CRR controller reads of a container status, and a terminated one's exit code (SidecarTerminator). */
function trimContainerStatus(s: ContainerStatus): ContainerStatus {
  const state = s?.state;
  return {
    name: s?.name,
    ready: s?.ready,
    restartCount: s?.restartCount,
    containerID: s?.containerID,
    ...(state?.running ? { state: { running: { startedAt: state.running.startedAt } } } : {}),
    ...(state?.terminated ? { state: { terminated: { exitCode: state.terminated.exitCode } } } : {}),
  } as ContainerStatus;
}

/**
 * The env vars controllers read of pods they do not own: launch barriers, SidecarTerminator's
 * marks, and the mark of injected sidecars (PodUnavailableBudgets wait for their upgrades).
 */
const KEPT_ENV = new Set([
  SIDECAR_INJECTED_ENV,
  CONTAINER_LAUNCH_BARRIER_ENV,
  KRUISE_TERMINATE_SIDECAR_ENV,
  KRUISE_IGNORE_CONTAINER_EXIT_CODE_ENV,
  KRUISE_TERMINATE_SIDECAR_WITH_IMAGE_ENV,
]);

/** What the CRR webhook reads of a container spec, and the env vars of {@link KEPT_ENV}. */
function trimContainer(c: Container): Container {
  const env = c?.env?.filter((e) => KEPT_ENV.has(e?.name));
  return {
    name: c?.name,
    ...(c?.ports ? { ports: c.ports } : {}),
    ...(c?.lifecycle?.preStop ? { lifecycle: { preStop: c.lifecycle.preStop } } : {}),
    ...(env?.length ? { env } : {}),
  } as Container;
}

/** Whether a pod annotation is one the SidecarSet controller reads (hashes, lists, versions, states). */
const sidecarSetAnnotation = (key: string) =>
  key.startsWith('kruise.io/sidecarset-') || key.includes('sidecarset.kruise.io/');

/** The pod annotations PodUnavailableBudgets read (the covering budget, the opt-out). */
const PUB_ANNOTATIONS = new Set([POD_RELATED_PUB_ANNOTATION, POD_PUB_NO_PROTECT_ANNOTATION]);

/**
 * The annotations controllers read of a pod they do not own: launch-priority-completed (container
 * launch priority), the SidecarSet ones and the PodUnavailableBudget ones.
 */
function trimAnnotations(annotations: Record<string, string> | undefined) {
  const kept = Object.entries(annotations ?? {}).filter(
    ([k]) =>
      k === CONTAINER_LAUNCH_PRIORITY_COMPLETED_ANNOTATION ||
      sidecarSetAnnotation(k) ||
      PUB_ANNOTATIONS.has(k),
  );
  return kept.length ? Object.fromEntries(kept) : undefined;
}

/**
 * Whether the controllers read the pod's images and imageIDs: SidecarSets were injected into it
 * (the SidecarSet controller), or a container is pinned by digest (PodUnavailableBudgets check the
 * runtime runs that digest).
 */
const keepsImages = (pod: Pod) =>
  pod.metadata?.annotations?.[SIDECARSET_INJECTED_LIST_ANNOTATION] !== undefined ||
  (pod.spec?.containers ?? []).some((c) => typeof c?.image === 'string' && c.image.includes('@'));

/** A container as trimmed, with its image when the pod has sidecars. */
const withImage = (trimmed: Container, c: Container, sidecars: boolean): Container =>
  sidecars ? { ...trimmed, image: c?.image } : trimmed;

/** A container status as trimmed, with image and imageID when the pod has sidecars. */
const statusWithImage = (trimmed: ContainerStatus, s: ContainerStatus, sidecars: boolean): ContainerStatus =>
  sidecars ? { ...trimmed, image: s?.image, imageID: s?.imageID } : trimmed;

/** Whether an apps.kruise.io workload (CloneSet, …) controls the pod. */
const kruiseWorkloadPod = (pod: Pod) =>
  (pod.metadata?.ownerReferences ?? []).some(
    (r) => r.controller && r.apiVersion.startsWith('apps.kruise.io/'),
  );

/** Large metadata no controller reads: field managers and kubectl's last applied configuration. */
function withoutBookkeeping(pod: Pod): Pod {
  const { managedFields: _, ...metadata } = pod.metadata ?? {};
  const annotations = metadata.annotations;
  if (annotations?.['kubectl.kubernetes.io/last-applied-configuration'] !== undefined) {
    const { 'kubectl.kubernetes.io/last-applied-configuration': __, ...rest } = annotations;
    metadata.annotations = rest;
  }
  return { ...pod, metadata };
}

/**
 * The parts of a pod the controllers and the CRR webhook read — labels and node (podSelector
 * jobs), container statuses, conditions and readiness gates (ContainerRecreateRequests), launch
 * barriers and the launch-priority-completed annotation (container launch priority), the restart
 * policy, sidecar marks and exit codes (SidecarTerminator), the creation time, the SidecarSet
 * and PodUnavailableBudget annotations and, of pods with sidecars or digest-pinned images, images
 * and imageIDs (SidecarSets, PodUnavailableBudgets); pods of
 * Kruise workloads whole but for managedFields (their controllers hash container specs and write
 * whole statuses).
 */
export function trimPod(pod: Pod): Pod {
  if (kruiseWorkloadPod(pod)) return withoutBookkeeping(pod);
  const m = pod.metadata ?? {};
  const st = pod.status ?? {};
  const sidecars = keepsImages(pod);
  return {
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
      labels: m.labels,
      annotations: trimAnnotations(m.annotations),
      deletionTimestamp: m.deletionTimestamp,
      ownerReferences: m.ownerReferences,
    },
    spec: {
      nodeName: pod.spec?.nodeName,
      restartPolicy: pod.spec?.restartPolicy,
      readinessGates: pod.spec?.readinessGates,
      terminationGracePeriodSeconds: pod.spec?.terminationGracePeriodSeconds,
      containers: pod.spec?.containers?.map((c) => withImage(trimContainer(c), c, sidecars)),
      initContainers: pod.spec?.initContainers?.map((c) => withImage(trimContainer(c), c, sidecars)),
    } as Pod['spec'],
    status: {
      phase: st.phase,
      conditions: st.conditions,
      containerStatuses: st.containerStatuses?.map((s) =>
        statusWithImage(trimContainerStatus(s), s, sidecars),
      ),
      initContainerStatuses: st.initContainerStatuses?.map((s) =>
        statusWithImage(trimContainerStatus(s), s, sidecars),
      ),
    },
  };
}

/**
 * The parts of a Node the node-level controllers read: labels (NodeImage, pre-download), and for
 * daemon placement and node fit the taints, the unschedulable flag, each condition's type, status
 * and transition time, and the allocatable resources.
 */
export function trimNode(node: Node): Node {
  const m = node.metadata ?? {};
  return {
    metadata: {
      name: m.name,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      labels: m.labels,
      deletionTimestamp: m.deletionTimestamp,
    },
    spec: {
      ...(node.spec?.taints ? { taints: node.spec.taints } : {}),
      ...(node.spec?.unschedulable ? { unschedulable: true } : {}),
    },
    status: {
      conditions: (node.status?.conditions ?? []).map(({ type, status, lastTransitionTime }) => ({
        type,
        status,
        lastTransitionTime,
      })),
      ...(node.status?.allocatable ? { allocatable: node.status.allocatable } : {}),
    },
  };
}

/**
 * The manager's shared pod informer, trimmed to what the node-level controllers and webhooks read.
 * A controller that needs whole pods asks the factory without a trim, and the factory then caches
 * whole pods for every user (see `InformerFactory`).
 */
export function trimmedPods(manager: Manager): Informer<Pod> {
  return manager.informers.informerFor<Pod>({ resource: Resources.Pod, transform: trimPod });
}

/**
 * The manager's shared Node informer, trimmed to what placement reads: labels, taints, the
 * unschedulable flag, each condition's type and status, and the allocatable resources.
 */
export function trimmedNodes(manager: Manager): Informer<Node> {
  return manager.informers.informerFor<Node>({ resource: Resources.Node, transform: trimNode });
}

/**
 * The manager's shared NodeImage informer, without managedFields (each NodeImage's is about as
 * large as its spec, and the ImagePullJob controller copies a cached NodeImage for every tag it writes).
 */
export function trimmedNodeImages(manager: Manager): Informer<NodeImage> {
  return manager.informers.informerFor<NodeImage>({
    resource: KruiseResources.NodeImage,
    transform: withoutManagedFields,
  });
}

/** A Namespace as the caches keep it: name and labels. */
export function trimNamespace(ns: Namespace): Namespace {
  return {
    metadata: {
      name: ns.metadata?.name,
      resourceVersion: ns.metadata?.resourceVersion,
      ...(ns.metadata?.labels ? { labels: ns.metadata.labels } : {}),
    },
  };
}

/**
 * The manager's shared Namespace informer, trimmed to names and labels (what SidecarSets'
 * namespaceSelectors match: injection and the SidecarSet controller).
 */
export function trimmedNamespaces(manager: Manager): Informer<Namespace & KubeObject> {
  return manager.informers.informerFor<Namespace & KubeObject>({
    resource: Resources.Namespace,
    transform: trimNamespace as (ns: Namespace & KubeObject) => Namespace & KubeObject,
  });
}
