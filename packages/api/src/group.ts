/** The API group every Kruise kind lives in. */
export const GROUP = 'apps.kruise.io';
/** The only version this project serves (upstream ≤ 1.8 served v1alpha1 alone; see ADR 0004). */
export const VERSION = 'v1alpha1';
/** `apiVersion` of every Kruise object. */
export const API_VERSION = `${GROUP}/${VERSION}`;
