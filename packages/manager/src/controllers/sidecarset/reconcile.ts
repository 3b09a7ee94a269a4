import { KruiseResources, type SidecarSet, type SidecarSetStatus } from '@kruise/api';
import { isConflict, isNotFound, type KubeObject, type Logger, Resources } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { inChunks } from '../../workload/in-chunks.ts';
import { isPodActive } from '../../workload/pod-state.ts';
import { PUB_REFUSED_RETRY_MS, podsBudgetsAllow } from '../../workload/pub/update-guard.ts';
import { revisionStore } from '../../workload/revision/store.ts';
import {
  hotUpgradeContainers,
  isHotUpgrade,
  isInjectedWith,
  SIDECARSET_HASH_ANNOTATION,
  sidecarSetMatchesPod,
} from '../../workload/sidecarset/index.ts';
import type { SidecarSetCaches, SidecarSetDeps } from './context.ts';
import { missingOnPod, missingOnSidecarSet, podsMissingSidecars, SIDECAR_MISSING_REASON } from './missing.ts';
import { isPodConsistentWithSidecarSet, isPodStateConsistent, sidecarContainersInPod } from './pod-state.ts';
import { applySidecarImages, flipHotUpgrade, hotUpgradeReady, inHotUpgrade } from './pod-update.ts';
import { editPod, setUpgradableCondition } from './pod-writes.ts';
import { registerLatestRevision, revisionsToDelete } from './revisions.ts';
import { sidecarSetStatus, statusChanged } from './status.ts';
import { nextUpgradePods } from './strategy.ts';

/** How soon a SidecarSet whose pod writes are not yet in the cache is looked at again (upstream: 1 s). */
const IN_FLIGHT_REQUEUE_MS = 1000;
/** How soon a SidecarSet whose status write met a newer copy is looked at again. */
const STATUS_CONFLICT_REQUEUE_MS = 200;

/** A pod with its kind, for events (cached pods carry none). */
const asPod = (p: Pod): Pod => ({ apiVersion: 'v1', kind: 'Pod', ...p });

const hashOf = (s: SidecarSet) => s.metadata?.annotations?.[SIDECARSET_HASH_ANNOTATION] ?? '';

/**
 * The SidecarSet reconcile (upstream's Processor.UpdateSidecarSet): its matched pods, its latest
 * revision and history, its status; then, unless updates are in flight, NotUpdate or paused, the
 * flip of finished hot upgrades or the next batch of in-place upgrades.
 */
export class SidecarSetReconciler {
  private readonly d: SidecarSetDeps;
  private readonly caches: SidecarSetCaches;
  /** Pods already reported as missing a SidecarSet's sidecars (`sidecarSet/podUID`). */
  private readonly reportedMissing = new Set<string>();

  constructor(d: SidecarSetDeps, caches: SidecarSetCaches) {
    this.d = d;
    this.caches = caches;
  }

  /**
   * The pods the SidecarSet manages (upstream's getMatchingPods): active, selected (namespace and
   * labels), injected with it, and with its sidecars as its upgrade types expect.
   */
  matchingPods(sidecarSet: SidecarSet): Pod[] {
    const name = sidecarSet.metadata?.name ?? '';
    return this.caches
      .injectedPods(name)
      .filter(
        (p) =>
          isPodActive(p) &&
          isInjectedWith(p, name) &&
          sidecarSetMatchesPod(sidecarSet, p, this.caches.namespaceLabels) &&
          isPodConsistentWithSidecarSet(p, sidecarSet),
      );
  }

  async reconcile(name: string, log: Logger): Promise<{ requeueAfterMs?: number }> {
    const sidecarSet = this.caches.sidecarSet(name);
    if (!sidecarSet) {
      this.d.updateExpectations.delete(name);
      for (const key of this.reportedMissing)
        if (key.startsWith(`${name}/`)) this.reportedMissing.delete(key);
      return {};
    }
    const pods = this.matchingPods(sidecarSet);
    const revisions = await this.registerRevision(sidecarSet, pods, log);
    const missing = this.reportMissing(sidecarSet);
    const status = sidecarSetStatus(
      sidecarSet,
      pods,
      revisions.latest.metadata?.name ?? '',
      revisions.collisionCount,
      missing,
    );
    if (!(await this.writeStatus(sidecarSet, status))) return { requeueAfterMs: STATUS_CONFLICT_REQUEUE_MS };
    const current: SidecarSet = { ...sidecarSet, status };
    const hash = hashOf(current);
    for (const p of this.caches.injectedPods(name))
      if (!pods.includes(p)) this.d.updateExpectations.forget(name, hash, p);
    for (const p of pods) {
      this.d.updateExpectations.observeUpdated(name, hash, p);
      this.d.resourceVersionExpectations.observe(p);
      if (!this.d.resourceVersionExpectations.check(p).satisfied) {
        log.debug({ pod: p.metadata?.name }, 'sidecarset pod update in flight');
        return { requeueAfterMs: IN_FLIGHT_REQUEUE_MS };
      }
    }
    if (!this.d.updateExpectations.check(name, hash).satisfied) {
      log.debug({ sidecarset: name }, 'sidecarset pod updates in flight');
      return { requeueAfterMs: IN_FLIGHT_REQUEUE_MS };
    }
    const strategy = current.spec?.updateStrategy;
    if (strategy?.type === 'NotUpdate' || strategy?.paused) return {};
    if ((current.spec?.containers ?? []).some(isHotUpgrade)) {
      const flips = pods.filter((p) => {
        const names = sidecarContainersInPod(current);
        for (const s of current.spec?.containers ?? [])
          if (isHotUpgrade(s)) names.delete(hotUpgradeContainers(s.name, p).other);
        return (
          inHotUpgrade(current, p) && isPodStateConsistent(current, p, names) && hotUpgradeReady(current, p)
        );
      });
      if (flips.length) {
        await this.flip(current, flips);
        return {};
      }
    }
    if (status.updatedPods >= status.matchedPods) return {};
    const refused = await this.upgrade(current, pods, revisions.latest, log);
    return refused ? { requeueAfterMs: PUB_REFUSED_RETRY_MS } : {};
  }

  /** Registers the latest revision and truncates history (failures to truncate are logged). */
  private async registerRevision(sidecarSet: SidecarSet, pods: Pod[], log: Logger) {
    const ns = this.d.kruiseNamespace;
    const base = revisionStore(this.d.client, ns);
    const store = {
      ...base,
      labelRevision: async (r: ControllerRevision, key: string, value: string) => {
        await this.d.client.mergePatch(Resources.ControllerRevision, ns, r.metadata?.name ?? '', {
          metadata: { labels: { [key]: value } },
        });
      },
    };
    const name = sidecarSet.metadata?.name ?? '';
    const result = await registerLatestRevision(store, sidecarSet, ns, this.caches.revisions(name));
    const { remove, short } = revisionsToDelete(sidecarSet, pods, result.history);
    try {
      for (const r of remove) await base.delete(r);
      if (short > 0)
        log.info({ sidecarset: name, short }, 'sidecarset revisions in use beyond the history limit');
    } catch (err) {
      log.error({ err, sidecarset: name }, 'sidecarset history truncation failed');
    }
    return result;
  }

  /**
   * Counts the pods missing the SidecarSet's sidecars and warns once per pod, on the SidecarSet and
   * on the pod (beyond upstream).
   */
  private reportMissing(sidecarSet: SidecarSet): number {
    const name = sidecarSet.metadata?.name ?? '';
    const missing = podsMissingSidecars(
      sidecarSet,
      this.caches.selectablePods(sidecarSet),
      this.caches.namespaceLabels,
      this.caches.selectedLate,
    );
    // Pods reported before and no longer missing (deleted, injected anew) are forgotten.
    const now = new Set(missing.map((p) => `${name}/${p.metadata?.uid}`));
    for (const key of this.reportedMissing)
      if (key.startsWith(`${name}/`) && !now.has(key)) this.reportedMissing.delete(key);
    for (const p of missing) {
      const key = `${name}/${p.metadata?.uid}`;
      if (this.reportedMissing.has(key)) continue;
      this.reportedMissing.add(key);
      this.d.event(sidecarSet, 'Warning', SIDECAR_MISSING_REASON, missingOnSidecarSet(p));
      this.d.event(asPod(p), 'Warning', SIDECAR_MISSING_REASON, missingOnPod(sidecarSet));
    }
    return missing.length;
  }

  /**
   * Writes the status when it changed (upstream's updateSidecarSetStatus). Returns false on a
   * conflict: the cache is behind, and the next round (soon) writes it from a newer copy.
   */
  private async writeStatus(sidecarSet: SidecarSet, status: SidecarSetStatus): Promise<boolean> {
    if (!statusChanged(sidecarSet, status)) return true;
    try {
      await this.d.client.updateStatus(KruiseResources.SidecarSet, { ...sidecarSet, status } as KubeObject);
      return true;
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return false;
      throw err;
    }
  }

  /** Flips the pods whose hot upgrade finished (upstream's flipHotUpgradingContainers). */
  private async flip(sidecarSet: SidecarSet, pods: Pod[]): Promise<void> {
    await inChunks(pods, async (pod) => {
      try {
        const written = await editPod(this.d.client, pod, (p) => flipHotUpgrade(sidecarSet, p, this.d.now()));
        this.d.resourceVersionExpectations.expect(written);
      } catch (err) {
        this.d.event(
          asPod(pod),
          'Warning',
          'ResetContainerFailed',
          `reset sidecar container image empty failed: ${(err as Error).message}`,
        );
        throw err;
      }
      this.d.event(
        asPod(pod),
        'Normal',
        'ResetContainerSucceed',
        'reset sidecar container image empty successfully',
      );
    });
  }

  /**
   * The next batch of in-place upgrades and the not-upgradable pods (upstream's updatePods);
   * true when a PodUnavailableBudget held a pod of the batch back.
   */
  private async upgrade(
    sidecarSet: SidecarSet,
    pods: Pod[],
    latest: ControllerRevision,
    log: Logger,
  ): Promise<boolean> {
    const name = sidecarSet.metadata?.name ?? '';
    const plan = nextUpgradePods(sidecarSet, pods);
    await inChunks(plan.notUpgradable, (p) =>
      setUpgradableCondition(this.d.client, sidecarSet, p, false, this.d.now()),
    );
    if (plan.notUpgradable.length)
      this.d.event(
        sidecarSet,
        'Normal',
        'NotUpgradablePods',
        `SidecarSet in-place update detected ${plan.notUpgradable.length} not upgradable pod(s) in this round, will skip them.`,
      );
    const hash = hashOf(sidecarSet);
    // the pods' budgets first (upstream's pod webhook refuses the update instead), in upgrade order
    const allowed = await podsBudgetsAllow(plan.upgrade, this.d.pubUpdateGuard);
    // upstream goes pod by pod; the pods do not depend on each other, so a chunk goes out together
    await inChunks(allowed.pods, async (p) => {
      await editPod(this.d.client, p, (fresh) =>
        applySidecarImages(sidecarSet, fresh, latest.metadata?.name ?? '', this.d.now()),
      );
      this.d.updateExpectations.expectUpdated(name, hash, p);
      await setUpgradableCondition(this.d.client, sidecarSet, p, true, this.d.now());
    });
    if (allowed.pods.length)
      log.info(
        { sidecarset: name, pods: allowed.pods.map((p) => p.metadata?.name) },
        'sidecarset updated pods',
      );
    return allowed.refused;
  }
}
