import { CONTROLLER_REVISION_HASH_LABEL } from '@kruise/api';

/** Deployment's label, which Kruise also writes with the short hash. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** The hash part of a revision name: what follows its last `-`. */
export function shortHash(revision: string): string {
  return revision.slice(revision.lastIndexOf('-') + 1);
}

/** Whether an object's `controller-revision-hash` names `revision`, in full or by its short hash. */
export function hasRevision(labels: Record<string, string> | undefined, revision: string): boolean {
  const own = labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
  return own === revision || shortHash(own) === shortHash(revision);
}

/**
 * Writes a revision into pod labels: `controller-revision-hash` (the full name, or the short hash
 * with gate CloneSetShortHash) and `pod-template-hash` (always the short hash). Mutates `labels`.
 */
export function writeRevisionHash(labels: Record<string, string>, revision: string, short: boolean): void {
  labels[CONTROLLER_REVISION_HASH_LABEL] = short ? shortHash(revision) : revision;
  labels[POD_TEMPLATE_HASH_LABEL] = shortHash(revision);
}

/**
 * How a workload writes and reads the revision of its pods (upstream's revisionadapter): the
 * default writes the revision's full name into `controller-revision-hash` and matches it exactly
 * (Advanced StatefulSet and DaemonSet); CloneSet also writes `pod-template-hash`, may write only the
 * short hash, and matches either form.
 */
export interface RevisionAdapter {
  write(labels: Record<string, string>, revision: string): void;
  matches(labels: Record<string, string> | undefined, revision: string): boolean;
}

/** The default adapter: `controller-revision-hash` is the revision's name. */
export const defaultRevisionAdapter: RevisionAdapter = {
  write: (labels, revision) => {
    labels[CONTROLLER_REVISION_HASH_LABEL] = revision;
  },
  matches: (labels, revision) => labels?.[CONTROLLER_REVISION_HASH_LABEL] === revision,
};

/** CloneSet's adapter (gate CloneSetShortHash: `short`). */
export const cloneSetRevisionAdapter = (short: boolean): RevisionAdapter => ({
  write: (labels, revision) => writeRevisionHash(labels, revision, short),
  matches: hasRevision,
});
