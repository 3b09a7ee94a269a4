import { kubeTime } from '@kruise/kube-compat';
import { retryOnConflict } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod, PodCondition, ResourceRequirements } from 'kubernetes-types/core/v1.js';
import { recomputeReadyCondition, setPodCondition } from '../podreadiness/conditions.ts';
import type { RevisionAdapter } from '../revision/pod-revision.ts';
import { hasNextBatch, patchUpdateSpecToPod, preCheckBeforeNext } from './batches.ts';
import { calculateInPlaceUpdateSpec, type InPlaceGates, isVerticalUpdateOnly } from './calculate.ts';
import { type CompletionOptions, containersNotUpdated } from './completion.ts';
import {
  hasInPlaceUpdateGate,
  INPLACE_UPDATE_READY,
  inPlaceUpdateCondition,
  START_INPLACE_UPDATE_REASON,
} from './readiness.ts';
import {
  INPLACE_UPDATE_GRACE_KEY,
  INPLACE_UPDATE_STATE_KEY,
  INPLACE_UPDATE_STATE_KEY_OLD,
  type InPlaceUpdateState,
  readGraceSpec,
  readState,
  removeGrace,
  serializeState,
  serializeUpdateSpec,
  type UpdateSpec,
} from './state.ts';
import { resourceChanges } from './vertical.ts';

/** How the library reads and writes pods (the API; a fake in tests). */
export interface PodAccess {
  /** A fresh read of the pod. */
  get(namespace: string, name: string): Promise<Pod>;
  update(pod: Pod): Promise<Pod>;
  updateStatus(pod: Pod): Promise<Pod>;
  /**
   * Writes containers' cpu/memory through `pods/resize` (since Kubernetes 1.32 the only write that
   * may change them), by container name.
   */
  resize(pod: Pod, resources: Record<string, ResourceRequirements>): Promise<Pod>;
}

/** Options of one workload's in-place updates. */
export interface InPlaceUpdateOptions extends CompletionOptions {
  gates: InPlaceGates;
  gracePeriodSeconds?: number;
  ignoreVolumeClaimTemplatesHashDiff?: boolean;
  /** How the workload writes its pods' revision label (and recognises it). */
  revisions: RevisionAdapter;
  /** What the pods' revision label holds for a revision (its name unless given). */
  revisionOf?: (revision: ControllerRevision) => string;
  /** Extra changes made with the revision labels (the lifecycle state `Updating`). */
  additional?: ((pod: Pod) => void)[];
}

/** What an update did. */
export interface UpdateResult {
  inPlace: boolean;
  /** Run again after this long (the grace period). */
  delayMs?: number;
  newResourceVersion?: string;
}

const roundUpSeconds = (ms: number) => Math.ceil(ms / 1000) * 1000;

/**
 * In-place updates of workload pods (upstream's inplaceupdate.realControl): deciding, starting
 * (InPlaceUpdateReady False, then revision labels, state annotation and the first batch, or the
 * grace annotation), and each reconcile's refresh (grace expiry, next batches, and the condition
 * back to True once complete).
 */
export class InPlaceUpdateControl {
  private readonly pods: PodAccess;
  private readonly now: () => number;

  constructor(pods: PodAccess, now: () => number = Date.now) {
    this.pods = pods;
    this.now = now;
  }

  /** Whether the change between the revisions can be made in place. */
  canUpdateInPlace(
    oldRevision: ControllerRevision | undefined,
    newRevision: ControllerRevision,
    opts: InPlaceUpdateOptions,
  ): boolean {
    return this.calculate(oldRevision, newRevision, opts) !== undefined;
  }

  private calculate(
    oldRevision: ControllerRevision | undefined,
    newRevision: ControllerRevision,
    opts: InPlaceUpdateOptions,
  ) {
    return calculateInPlaceUpdateSpec(oldRevision, newRevision, {
      gates: opts.gates,
      ...(opts.gracePeriodSeconds ? { gracePeriodSeconds: opts.gracePeriodSeconds } : {}),
      ...(opts.ignoreVolumeClaimTemplatesHashDiff ? { ignoreVolumeClaimTemplatesHashDiff: true } : {}),
      ...(opts.revisionOf ? { revisionOf: opts.revisionOf } : {}),
    });
  }

  /**
   * Starts updating `pod` from `oldRevision` to `newRevision` in place; `inPlace` is false when
   * that is not possible (the caller recreates). Errors propagate after conflict retries.
   */
  async update(
    pod: Pod,
    oldRevision: ControllerRevision | undefined,
    newRevision: ControllerRevision,
    opts: InPlaceUpdateOptions,
  ): Promise<UpdateResult> {
    const spec = this.calculate(oldRevision, newRevision, opts);
    if (!spec) return { inPlace: false };
    // the status write returns the stored pod: the update below starts from it, not from a read
    const marked = needsUnready(pod, spec, opts)
      ? await this.onLatest(pod, (fresh) =>
          this.writeCondition(fresh, {
            type: INPLACE_UPDATE_READY,
            status: 'False',
            reason: START_INPLACE_UPDATE_REASON,
            lastTransitionTime: kubeTime(this.now()),
          }),
        )
      : pod;
    const newResourceVersion = await this.start(marked, spec, opts);
    return {
      inPlace: true,
      newResourceVersion,
      ...(opts.gracePeriodSeconds && opts.gracePeriodSeconds > 0
        ? { delayMs: opts.gracePeriodSeconds * 1000 }
        : {}),
    };
  }

  private async start(pod: Pod, spec: UpdateSpec, opts: InPlaceUpdateOptions): Promise<string | undefined> {
    return this.onLatest(pod, async (latest) => {
      const clone = latest;
      clone.metadata ??= {};
      clone.metadata.labels ??= {};
      opts.revisions.write(clone.metadata.labels, spec.revision);
      clone.metadata.annotations ??= {};
      const annotations = clone.metadata.annotations;
      for (const f of opts.additional ?? []) f(clone);
      const state: InPlaceUpdateState = {
        revision: spec.revision,
        updateTimestamp: kubeTime(this.now()),
        lastContainerStatuses: null,
        ...(spec.updateEnvFromMetadata ? { updateEnvFromMetadata: true } : {}),
        ...(Object.keys(spec.containerImages ?? {}).length ? { updateImages: true } : {}),
        ...(Object.keys(spec.containerResources ?? {}).length ? { updateResources: true } : {}),
      };
      annotations[INPLACE_UPDATE_STATE_KEY] = serializeState(state);
      delete annotations[INPLACE_UPDATE_STATE_KEY_OLD];
      if (!spec.graceSeconds || spec.graceSeconds <= 0) {
        const next = patchUpdateSpecToPod(clone, spec, state, {
          verticalScaling: opts.gates.verticalScaling === true,
          now: this.now(),
        });
        removeGrace(next);
        return (await this.write(clone, next)).metadata?.resourceVersion;
      }
      annotations[INPLACE_UPDATE_GRACE_KEY] = serializeUpdateSpec(spec);
      return (await this.pods.update(clone)).metadata?.resourceVersion;
    });
  }

  /**
   * Moves an in-place update along (every reconcile, every pod): applies a grace-delayed update once
   * the grace period is over (or drops it when the pod's revision moved on), applies the next batch
   * once the current one completed and its containers are ready, and sets InPlaceUpdateReady True
   * when everything is done. Returns how long to wait for a grace period still running and, when it
   * set InPlaceUpdateReady True, the pod as stored after that write (`written`).
   */
  async refresh(pod: Pod, opts: InPlaceUpdateOptions): Promise<{ delayMs?: number; written?: Pod }> {
    if (
      pod.metadata?.annotations?.[INPLACE_UPDATE_GRACE_KEY] ??
      pod.metadata?.annotations?.['inplace-update-grace']
    )
      return this.finishGracePeriod(pod, opts);
    const state = readState(pod);
    if (state) {
      if (containersNotUpdated(pod, state, opts) !== undefined) return {};
      if (hasNextBatch(state)) {
        if (preCheckBeforeNext(pod, state) !== undefined) return {};
        if (await this.updateNextBatch(pod, state, opts)) return {};
      }
    }
    if (!hasInPlaceUpdateGate(pod)) return {};
    const current = inPlaceUpdateCondition(pod);
    if (current?.status === 'True' && !current.reason && !current.message) return {};
    // a status write of the node or kruise-daemon in between is a conflict: read again and retry
    const written = await this.onLatest(pod, (latest) =>
      this.writeCondition(latest, {
        type: INPLACE_UPDATE_READY,
        status: 'True',
        lastTransitionTime: kubeTime(this.now()),
      }),
    );
    return { written };
  }

  private async finishGracePeriod(pod: Pod, opts: InPlaceUpdateOptions): Promise<{ delayMs?: number }> {
    let delayMs: number | undefined;
    await this.onLatest(pod, async (latest) => {
      delayMs = undefined;
      const clone = latest;
      const spec = readGraceSpec(clone);
      if (!spec) return;
      const state = readState(clone);
      if (!state)
        throw new Error(`pod has ${INPLACE_UPDATE_GRACE_KEY} but ${INPLACE_UPDATE_STATE_KEY} not found`);
      if (!opts.revisions.matches(clone.metadata?.labels, spec.revision)) {
        removeGrace(clone);
        await this.pods.update(clone);
        return;
      }
      const span = this.now() - Date.parse(state.updateTimestamp);
      const grace = (spec.graceSeconds ?? 0) * 1000;
      if (span < grace) {
        delayMs = roundUpSeconds(grace - span);
        return;
      }
      const next = patchUpdateSpecToPod(clone, spec, state, {
        verticalScaling: opts.gates.verticalScaling === true,
        now: this.now(),
      });
      removeGrace(next);
      await this.write(clone, next);
    });
    return delayMs === undefined ? {} : { delayMs };
  }

  private async updateNextBatch(
    pod: Pod,
    state: InPlaceUpdateState,
    opts: InPlaceUpdateOptions,
  ): Promise<boolean> {
    let updated = false;
    await this.onLatest(pod, async (clone) => {
      updated = false;
      if (
        !Object.keys(state.nextContainerImages ?? {}).length &&
        !Object.keys(state.nextContainerRefMetadata ?? {}).length
      )
        return;
      const spec: UpdateSpec = {
        revision: state.revision,
        containerImages: state.nextContainerImages ?? {},
        containerRefMetadata: state.nextContainerRefMetadata ?? {},
        containerResources: state.nextContainerResources ?? {},
        ...(state.updateEnvFromMetadata ? { updateEnvFromMetadata: true } : {}),
      };
      const next = patchUpdateSpecToPod(clone, spec, structuredClone(state), {
        verticalScaling: opts.gates.verticalScaling === true,
        now: this.now(),
      });
      updated = true;
      await this.write(clone, next);
    });
    return updated;
  }

  /**
   * Writes an in-place change of `current` (as read) into `next`: cpu/memory first through
   * `pods/resize` (upstream's PatchPodResource), then the pod. After a resize the pod's
   * resourceVersion moved on, so that update conflicts and the caller's retry, reading the resized
   * pod, writes the rest (as upstream's).
   */
  private async write(current: Pod, next: Pod): Promise<Pod> {
    const resources = resourceChanges(current, next);
    if (Object.keys(resources).length) await this.pods.resize(next, resources);
    return this.pods.update(next);
  }

  /**
   * Runs `write` on a copy of `pod` as the caller has it (a workload's pods come from the informer
   * cache, as upstream's reads do), and on a fresh read after each conflict: a current copy costs
   * no GET, a stale one fails on its resourceVersion and is read again.
   */
  private onLatest<T>(pod: Pod, write: (latest: Pod) => Promise<T>): Promise<T> {
    let copy: Pod | undefined = structuredClone(pod);
    return retryOnConflict(async () => {
      const latest = copy ?? (await this.pods.get(pod.metadata?.namespace ?? '', pod.metadata?.name ?? ''));
      copy = undefined;
      return write(latest);
    });
  }

  /** Sets a condition (recomputing Ready when it is False) and writes the status; returns the stored pod. */
  private writeCondition(pod: Pod, condition: PodCondition): Promise<Pod> {
    setPodCondition(pod, condition);
    if (condition.status === 'False') recomputeReadyCondition(pod, kubeTime(this.now()));
    return this.pods.updateStatus(pod);
  }
}

/**
 * Whether the pod is marked not-ready for the update: it has the InPlaceUpdateReady gate, and the
 * change is not a resize that restarts nothing (vertical scaling with no RestartContainer policy hit).
 */
function needsUnready(pod: Pod, spec: UpdateSpec, opts: InPlaceUpdateOptions): boolean {
  if (!hasInPlaceUpdateGate(pod)) return false;
  return !(opts.gates.verticalScaling && isVerticalUpdateOnly(spec) && !resizeRestarts(pod, spec));
}

/** Whether a resize touches a resource whose resizePolicy restarts the container. */
function resizeRestarts(pod: Pod, spec: UpdateSpec): boolean {
  for (const c of pod.spec?.containers ?? []) {
    const r = spec.containerResources?.[c.name];
    if (!r) continue;
    const touched = (name: string) => r.limits?.[name] !== undefined || r.requests?.[name] !== undefined;
    for (const p of c.resizePolicy ?? [])
      if (p.restartPolicy === 'RestartContainer' && touched(p.resourceName)) return true;
  }
  return false;
}
