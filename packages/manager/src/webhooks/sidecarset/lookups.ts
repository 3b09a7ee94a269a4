import type { SidecarSet } from '@kruise/api';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';

/** A ControllerRevision as the SidecarSet webhook reads it. */
export interface RevisionRecord {
  metadata?: { name?: string; labels?: Record<string, string> };
  revision?: number;
}

/**
 * What the SidecarSet's validating webhook reads beyond the request (the manager passes its API
 * client in; tests pass fixed answers).
 */
export interface SidecarSetAdmissionLookups {
  /** Every SidecarSet of the cluster, at v1beta1. */
  sidecarSets(): Promise<SidecarSet[]>;
  /** The ControllerRevision of this name in the Kruise namespace; rejects (with the API's words) when absent. */
  revision(name: string): Promise<RevisionRecord>;
  /** The Kruise namespace's ControllerRevisions carrying every one of these labels. */
  revisions(labels: Record<string, string>): Promise<RevisionRecord[]>;
  /** The `kruise-configuration` ConfigMap of the Kruise namespace, undefined when there is none. */
  configuration(): Promise<ConfigMap | undefined>;
}

const noAccess = () => Promise.reject(new Error('no API access'));

/** Lookups for generating configurations, where no request is ever served. */
export const NO_SIDECARSET_LOOKUPS: SidecarSetAdmissionLookups = {
  sidecarSets: noAccess,
  revision: noAccess,
  revisions: noAccess,
  configuration: noAccess,
};
