/** The API group every Kruise kind lives in. */
export const GROUP = 'apps.kruise.io';
/**
 * The version the single-version Kruise kinds are served at (upstream ≤ 1.8 served v1alpha1 alone;
 * ADR 0003). Advanced StatefulSet is stored at v1beta1 and served at v1alpha1 too (ADR 0045).
 */
export const VERSION = 'v1alpha1';
/** `apiVersion` of the single-version Kruise kinds. */
export const API_VERSION = `${GROUP}/${VERSION}`;
/** The API group of Kruise's availability protection (PodUnavailableBudget). */
export const POLICY_GROUP = 'policy.kruise.io';
