/** Well-known labels, annotations and finalizers, spelled as upstream OpenKruise spells them. */

/** CRR: [immutable] UID of the target pod. */
export const CRR_POD_UID_LABEL = 'crr.apps.kruise.io/pod-uid';
/** CRR: [immutable] node of the target pod. */
export const CRR_NODE_NAME_LABEL = 'crr.apps.kruise.io/node-name';
/** CRR: `true` while the request is not completed; the daemon watches only active requests. */
export const CRR_ACTIVE_LABEL = 'crr.apps.kruise.io/active';
/** CRR: JSON `[{name,ready,restartCount,containerID}]` of the pod's containers while recreating. */
export const CRR_SYNC_CONTAINER_STATUSES_ANNOTATION = 'crr.apps.kruise.io/sync-container-statuses';
/** CRR: RFC 3339 time at which the pod was forced not-ready. */
export const CRR_UNREADY_ACQUIRED_ANNOTATION = 'crr.apps.kruise.io/unready-acquired';
/** CRR finalizer held while the pod is forced not-ready. */
export const CRR_UNREADY_ACQUIRED_FINALIZER = 'crr.apps.kruise.io/unready-acquired';
/** Node label copied to CRRs of virtual-kubelet nodes; such nodes get no NodeImage. */
export const VIRTUAL_KUBELET_LABEL = 'type';
/** Value of {@link VIRTUAL_KUBELET_LABEL} on virtual-kubelet nodes. */
export const VIRTUAL_KUBELET_VALUE = 'virtual-kubelet';

/** Container env: `true` marks a sidecar SidecarTerminator stops once the job's main containers are done. */
export const KRUISE_TERMINATE_SIDECAR_ENV = 'KRUISE_TERMINATE_SIDECAR_WHEN_JOB_EXIT';
/** Container env: an image that replaces the sidecar's on virtual-kubelet nodes to stop it (SidecarTerminator). */
export const KRUISE_TERMINATE_SIDECAR_WITH_IMAGE_ENV = 'KRUISE_TERMINATE_SIDECAR_WHEN_JOB_EXIT_WITH_IMAGE';
/** Container env: `true` lets SidecarTerminator end the pod by its main containers, whatever the sidecar's exit code. */
export const KRUISE_IGNORE_CONTAINER_EXIT_CODE_ENV = 'KRUISE_TERMINATE_SIDECAR_IGNORE_EXIT_CODE';
/** Pod condition SidecarTerminator sets when it ends a pod whose ignore-exit-code sidecars still run. */
export const SIDECAR_TERMINATED_CONDITION = 'SidecarTerminated';

/** ImagePullJob finalizer that protects secret copies until they are released. */
export const DELETION_PROTECTION_FINALIZER = 'apps.kruise.io/deletion-protection';

/** Namespace holding the secrets kruise-daemon may read (env `KRUISE_DAEMON_CONFIG_NS`). */
export const DEFAULT_DAEMON_CONFIG_NAMESPACE = 'kruise-daemon-config';
/** Secret copy: `ns/name` of the source secret. */
export const SECRET_SOURCE_KEY_ANNOTATION = 'imagepulljobs.kruise.io/source-key';
/** Secret copy: sorted comma list of `ns/name` of the jobs using it. */
export const SECRET_REFERENCES_ANNOTATION = 'imagepulljobs.kruise.io/references';
/** Secret copy: `batch` for copies shared between jobs. */
export const SECRET_MODE_ANNOTATION = 'imagepulljobs.kruise.io/mode';
/** Value of {@link SECRET_MODE_ANNOTATION} and of a NodeImage pull secret's `mode`. */
export const SECRET_MODE_BATCH = 'batch';

/**
 * An object read at an older version than its storage version (v1alpha1 of a kind stored at
 * v1beta1): JSON of the spec fields only v1beta1 has, kept here by the conversion webhook so that
 * writing the object back at the older version loses none of them (the key is the webhook's own).
 */
export const V1BETA1_ONLY_SPEC_ANNOTATION = 'apps.kruise.io/v1beta1-only-spec';

/** NodeImage label: a NodeImage without a Node, never garbage-collected. */
export const FAKE_NODEIMAGE_LABEL = 'apps.kruise.io/fake-nodeimage';

/** Pod readiness gate and condition type owned by Kruise. */
export const KRUISE_POD_READY_CONDITION = 'KruisePodReady';
/** Pod annotation with per-container runtime metadata. */
export const RUNTIME_CONTAINERS_META_ANNOTATION = 'apps.kruise.io/runtime-containers-meta';
/** CRI sandbox annotation set on pulls made by the daemon. */
export const PULLING_IMAGE_BY_ANNOTATION = 'apps.kruise.io/pulling-image-by';
/** Value of {@link PULLING_IMAGE_BY_ANNOTATION}. */
export const PULLING_IMAGE_BY_DAEMON = 'kruise-daemon';

/** ImageListPullJob children: hash of the template they were made from. */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';

/** Workload annotations that feed auto-created jobs. */
export const IMAGE_PREDOWNLOAD_PARALLELISM_ANNOTATION = 'apps.kruise.io/image-predownload-parallelism';
export const IMAGE_PREDOWNLOAD_TIMEOUT_SECONDS_ANNOTATION =
  'apps.kruise.io/image-predownload-timeout-seconds';
export const IMAGE_PREDOWNLOAD_MIN_UPDATED_READY_PODS_ANNOTATION =
  'apps.kruise.io/image-predownload-min-updated-ready-pods';

/** Advanced DaemonSet at v1alpha1: partitioned scaling (`scaleStrategy.partitionedScaling` at v1beta1). */
export const PROGRESSIVE_CREATE_POD_ANNOTATION = 'daemonset.kruise.io/progressive-create-pod';
/** The label a BroadcastJob's pods carry with the job's name. */
export const BROADCASTJOB_NAME_LABEL = 'broadcastjob-name';
/** The label a BroadcastJob's pods carry with the job's UID. */
export const BROADCASTJOB_CONTROLLER_UID_LABEL = 'broadcastjob-controller-uid';

/**
 * SidecarSet's custom version: a label of the SidecarSet at v1alpha1 (its `spec.customVersion` at
 * v1beta1), and the label its ControllerRevisions carry.
 */
export const SIDECARSET_CUSTOM_VERSION_LABEL = 'apps.kruise.io/sidecarset-custom-version';

/** PodUnavailableBudget: the protected operations, a comma list of DELETE, EVICT, UPDATE, RESIZE. */
export const PUB_PROTECT_OPERATIONS_ANNOTATION = 'kruise.io/pub-protect-operations';
/** PodUnavailableBudget: the replica count to protect, instead of the workloads' (an int32). */
export const PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION = 'pub.kruise.io/protect-total-replicas';
/** Pod: `true` opts the pod out of every PodUnavailableBudget. */
export const POD_PUB_NO_PROTECT_ANNOTATION = 'pub.kruise.io/no-protect';
/** Pod: the name of the PodUnavailableBudget that covers it (stamped at creation and by the controller). */
export const POD_RELATED_PUB_ANNOTATION = 'kruise.io/related-pub';
