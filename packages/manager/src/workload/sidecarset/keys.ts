/** The names SidecarSet writes on pods, revisions and containers (upstream's, word for word). */

/** ControllerRevision label naming the SidecarSet the revision belongs to. */
export const SIDECARSET_NAME_LABEL = 'kruise.io/sidecarset-name';
/** On a SidecarSet: the hash of its sidecars. On a pod: JSON of sidecarSet → upgrade spec. */
export const SIDECARSET_HASH_ANNOTATION = 'kruise.io/sidecarset-hash';
/** The same as SIDECARSET_HASH_ANNOTATION with every image left out. */
export const SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION = 'kruise.io/sidecarset-hash-without-image';
/** On a pod: the comma-separated names of the SidecarSets injected into it. */
export const SIDECARSET_INJECTED_LIST_ANNOTATION = 'kruise.io/sidecarset-injected-list';
/** On a pod: the in-place update state of its sidecars, by SidecarSet. */
export const SIDECARSET_INPLACE_UPDATE_STATE_ANNOTATION = 'kruise.io/sidecarset-inplace-update-state';
/** On a pod: which copy of each hot-upgrade sidecar is working (`{"envoy":"envoy-1"}`). */
export const SIDECARSET_WORKING_HOTUPGRADE_CONTAINER_ANNOTATION =
  'kruise.io/sidecarset-working-hotupgrade-container';
/** Env var every injected container carries. */
export const SIDECAR_INJECTED_ENV = 'IS_INJECTED';
/** Env vars of a hot-upgrade sidecar copy: its own version and its sibling's. */
export const SIDECARSET_VERSION_ENV = 'SIDECARSET_VERSION';
export const SIDECARSET_VERSION_ALT_ENV = 'SIDECARSET_VERSION_ALT';
/** Pod condition: False when the pod's sidecars cannot be upgraded in place. */
export const SIDECARSET_UPGRADABLE_CONDITION = 'SidecarSetUpgradable';
/** The `kruise-configuration` key holding the patchPodMetadata whitelist. */
export const SIDECARSET_PATCH_METADATA_WHITELIST_KEY = 'SidecarSet_PatchPodMetadata_WhiteList';

/** The pod annotation recording the version of hot-upgrade copy `container` (`mesh-1`). */
export const versionAnnotation = (container: string): string => `version.sidecarset.kruise.io/${container}`;
/** The pod annotation recording the version of the sibling of hot-upgrade copy `container`. */
export const versionAltAnnotation = (container: string): string =>
  `versionalt.sidecarset.kruise.io/${container}`;
/**
 * On a SidecarSet: when its selection (selector, namespaceSelector, injection paused) last changed,
 * stamped by its mutating webhook (ours, not upstream's). Pods created before then were not injected
 * with it for a reason, and are not reported as missing its sidecars.
 */
export const SIDECARSET_SELECTION_CHANGED_ANNOTATION = 'kruise.io/sidecarset-selection-changed-at';
