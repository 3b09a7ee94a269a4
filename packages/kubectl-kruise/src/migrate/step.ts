/** What one workload of a migration looks like at one moment. */
export interface MigrationSide {
  generation: number;
  observedGeneration: number;
  replicas: number;
  /** The CloneSet's availableReplicas (unused for the Deployment). */
  availableReplicas: number;
}

/** How far a migration has come: replicas taken from the Deployment and added to the CloneSet. */
export interface MigrationProgress {
  srcMigrated: number;
  dstMigrated: number;
}

/** The next move of a migration. */
export type MigrationStep =
  | { action: 'done' }
  | { action: 'wait' }
  | { action: 'scale-out'; count: number }
  | { action: 'scale-in'; count: number };

/**
 * kruise-tools' migration reconcile, as a pure function: once both controllers observed their
 * last change, first grow the CloneSet by up to `maxSurge` beyond what the Deployment gave up (and
 * no more than `total`), then, when every CloneSet replica is available, shrink the Deployment by
 * what the CloneSet gained. Done when both moved `total`.
 */
export function migrationStep(
  src: MigrationSide,
  dst: MigrationSide,
  done: MigrationProgress,
  total: number,
  maxSurge: number,
): MigrationStep {
  if (done.srcMigrated === total && done.dstMigrated === total) return { action: 'done' };
  if (src.generation !== src.observedGeneration || dst.generation !== dst.observedGeneration)
    return { action: 'wait' };
  if (done.dstMigrated < total) {
    const out = Math.min(maxSurge - (done.dstMigrated - done.srcMigrated), total - done.dstMigrated);
    if (out > 0) return { action: 'scale-out', count: out };
  }
  if (done.srcMigrated < total) {
    const inCount = Math.min(src.replicas, total - done.srcMigrated, done.dstMigrated - done.srcMigrated);
    if (inCount > 0 && dst.replicas === dst.availableReplicas) return { action: 'scale-in', count: inCount };
  }
  return { action: 'wait' };
}
