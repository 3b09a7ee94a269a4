import type { AdmissionRequest } from '@kruise/runtime';

/** The two versions the multi-version workloads (Advanced StatefulSet, Advanced DaemonSet) are served at. */
export type ServedVersion = 'v1beta1' | 'v1alpha1';

/** The request's version (v1beta1, the storage version, unless it is v1alpha1). */
export const requestVersion = (request: AdmissionRequest): ServedVersion =>
  request.resource?.version === 'v1alpha1' ? 'v1alpha1' : 'v1beta1';
