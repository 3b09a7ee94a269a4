import type { SidecarSet } from '@kruise/api';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';

/** What the SidecarSet step reads (from the manager's caches, or fakes in tests). */
export interface SidecarSetLookups {
  /** Every SidecarSet. */
  sidecarSets(): Promise<SidecarSet[]>;
  /** The labels of a namespace; undefined when it does not exist. */
  namespaceLabels(name: string): Promise<Record<string, string> | undefined>;
  /** The ControllerRevisions in the Kruise namespace labelled `kruise.io/sidecarset-name: <sidecarSet>`. */
  revisions(sidecarSet: string): Promise<ControllerRevision[]>;
  /** A ControllerRevision in the Kruise namespace by name; undefined when there is none. */
  revision(name: string): Promise<ControllerRevision | undefined>;
}

/** No SidecarSets at all (for generating configurations, where no request is served). */
export const NO_SIDECARSETS: SidecarSetLookups = {
  sidecarSets: async () => [],
  namespaceLabels: async () => undefined,
  revisions: async () => [],
  revision: async () => undefined,
};
