import type { KubeObject } from '../../registry/types.ts';
import { DESIRED_REPLICAS, intAnnotation } from './annotations.ts';
import type { DeploymentRun } from './deployment-run.ts';
import {
  activeOrLatest,
  activeSets,
  availableReplicaCount,
  byCreation,
  isRollingUpdate,
  isSaturated,
  maxSurge,
  maxUnavailable,
  newReplicaSetSize,
  proportionOf,
  replicaCount,
  specReplicas,
} from './replicas.ts';

/** isScalingEvent: an active ReplicaSet was last scaled for another spec.replicas than the Deployment's now. */
export async function isScalingEvent(run: DeploymentRun): Promise<boolean> {
  const { newRS, oldRSs } = await run.replicaSets(false);
  const replicas = specReplicas(run.d);
  return activeSets([newRS, ...oldRSs]).some((rs) => {
    const desired = intAnnotation(rs, DESIRED_REPLICAS);
    return desired !== undefined && desired !== replicas;
  });
}

/**
 * `scale`: one active ReplicaSet takes the Deployment's replicas; a saturated new one sends the old
 * ones to 0; otherwise, in a rolling update, the difference is shared among the ReplicaSets in
 * proportion to their size (the leftover to the first: the largest, newer first on scale-up).
 */
async function scale(run: DeploymentRun, newRS: KubeObject | undefined, oldRSs: KubeObject[]): Promise<void> {
  const d = run.d;
  const single = activeOrLatest(newRS, oldRSs);
  if (single) {
    if (specReplicas(single) !== specReplicas(d)) await run.scale(single, specReplicas(d));
    return;
  }
  if (isSaturated(d, newRS)) {
    for (const old of activeSets(oldRSs)) await run.scale(old, 0);
    return;
  }
  if (!isRollingUpdate(d)) return;
  const all = activeSets([...oldRSs, newRS]);
  const allowed = specReplicas(d) > 0 ? specReplicas(d) + maxSurge(d) : 0;
  const toAdd = allowed - replicaCount(all);
  const created = (rs: KubeObject) => Date.parse(rs.metadata?.creationTimestamp ?? '') || 0;
  let operation: 'up' | 'down' | undefined;
  if (toAdd > 0) {
    all.sort((a, b) => specReplicas(b) - specReplicas(a) || created(b) - created(a));
    operation = 'up';
  } else if (toAdd < 0) {
    all.sort((a, b) => specReplicas(b) - specReplicas(a) || created(a) - created(b));
    operation = 'down';
  }
  const sizes = new Map<KubeObject, number>();
  let added = 0;
  for (const rs of all) {
    const share = toAdd !== 0 ? proportionOf(rs, d, toAdd, added) : 0;
    sizes.set(rs, specReplicas(rs) + share);
    added += share;
  }
  for (const [i, rs] of all.entries()) {
    let size = sizes.get(rs)!;
    if (i === 0 && toAdd !== 0) size = Math.max(0, size + toAdd - added);
    await run.scale(rs, size, operation);
  }
}

/** `sync`: for a paused Deployment or a scaling event — scale, clean up history when paused, sync status. */
export async function syncScale(run: DeploymentRun): Promise<void> {
  const { newRS, oldRSs } = await run.replicaSets(false);
  await scale(run, newRS, oldRSs);
  const fresh = await run.replicaSets(false);
  if (run.d.spec?.paused) await run.cleanup(fresh.oldRSs);
  await run.syncStatus([...fresh.oldRSs, fresh.newRS], fresh.newRS);
}

/** reconcileNewReplicaSet: scales the new ReplicaSet toward replicas within maxSurge; whether it scaled. */
async function reconcileNew(run: DeploymentRun, all: KubeObject[], newRS: KubeObject): Promise<boolean> {
  const replicas = specReplicas(run.d);
  if (specReplicas(newRS) === replicas) return false;
  if (specReplicas(newRS) > replicas) return (await run.scale(newRS, replicas)).scaled;
  return (await run.scale(newRS, newReplicaSetSize(run.d, all, newRS))).scaled;
}

/**
 * reconcileOldReplicaSets: scales old ReplicaSets down as far as maxUnavailable allows, unhealthy
 * replicas first; whether anything scaled.
 */
async function reconcileOld(run: DeploymentRun, all: KubeObject[], oldRSs: KubeObject[], newRS: KubeObject) {
  const d = run.d;
  if (replicaCount(oldRSs) === 0) return false;
  const minAvailable = specReplicas(d) - maxUnavailable(d);
  const newUnavailable = specReplicas(newRS) - Number(newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = replicaCount(all) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;
  // Unhealthy replicas first: scaling them down never lowers availability.
  let cleaned = 0;
  const olds = [...oldRSs].sort(byCreation);
  for (const [i, rs] of olds.entries()) {
    if (cleaned >= maxScaledDown) break;
    const unhealthy = specReplicas(rs) - Number(rs.status?.availableReplicas ?? 0);
    if (specReplicas(rs) === 0 || unhealthy <= 0) continue;
    const down = Math.min(maxScaledDown - cleaned, unhealthy);
    olds[i] = (await run.scale(rs, specReplicas(rs) - down)).rs;
    cleaned += down;
  }
  // Then available ones, as far as minAvailable allows.
  let scaled = 0;
  const available = availableReplicaCount([...olds, newRS]);
  if (available > minAvailable) {
    const total = available - minAvailable;
    for (const rs of olds) {
      if (scaled >= total) break;
      if (specReplicas(rs) === 0) continue;
      const down = Math.min(specReplicas(rs), total - scaled);
      await run.scale(rs, specReplicas(rs) - down);
      scaled += down;
    }
  }
  return cleaned + scaled > 0;
}

/** rolloutRolling: new ReplicaSet up within maxSurge, old ones down within maxUnavailable, then status. */
export async function rolloutRolling(run: DeploymentRun): Promise<void> {
  const { newRS, oldRSs } = await run.replicaSets(true);
  if (!newRS) return;
  const all = [...oldRSs, newRS];
  if (await reconcileNew(run, all, newRS)) {
    const fresh = await run.replicaSets(false);
    return run.syncRolloutStatus([...fresh.oldRSs, fresh.newRS], fresh.newRS);
  }
  if (await reconcileOld(run, all, activeSets(oldRSs), newRS)) {
    const fresh = await run.replicaSets(false);
    return run.syncRolloutStatus([...fresh.oldRSs, fresh.newRS], fresh.newRS);
  }
  if (run.complete()) await run.cleanup(oldRSs);
  await run.syncRolloutStatus(all, newRS);
}

/**
 * rolloutRecreate: every old ReplicaSet to 0 and, once none of their pods is left running, the new
 * ReplicaSet created and scaled to replicas.
 */
export async function rolloutRecreate(run: DeploymentRun, oldPodsRunning: (newRS?: KubeObject) => boolean) {
  let { newRS, oldRSs } = await run.replicaSets(false);
  let scaledDown = false;
  for (const rs of activeSets(oldRSs)) if ((await run.scale(rs, 0)).scaled) scaledDown = true;
  if (scaledDown) {
    const fresh = await run.replicaSets(false);
    return run.syncRolloutStatus([...fresh.oldRSs, fresh.newRS], fresh.newRS);
  }
  if (Number(oldRSs.reduce((n, rs) => n + Number(rs.status?.replicas ?? 0), 0)) > 0 || oldPodsRunning(newRS))
    return run.syncRolloutStatus([...oldRSs, newRS], newRS);
  if (!newRS) ({ newRS, oldRSs } = await run.replicaSets(true));
  if (!newRS) return;
  await run.scale(newRS, specReplicas(run.d));
  if (run.complete()) await run.cleanup(oldRSs);
  const fresh = await run.replicaSets(false);
  await run.syncRolloutStatus([...fresh.oldRSs, fresh.newRS], fresh.newRS);
}
