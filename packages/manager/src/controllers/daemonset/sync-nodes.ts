import type { DaemonSet } from '@kruise/api';
import { daemonTolerations, replaceNodeNameAffinity } from '@kruise/kube-compat';
import { isNotFound, type KubeObject, Resources } from '@kruise/runtime';
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { INPLACE_UPDATE_READY } from '../../workload/inplaceupdate/readiness.ts';
import { isPodHooked } from '../../workload/lifecycle/state.ts';
import type { PodControls } from '../../workload/pod-controls.ts';
import { podFromTemplate } from '../../workload/pod-from-template.ts';
import { controllerRef } from '../../workload/revision/history.ts';
import { doItSlowly } from '../../workload/slow-start.ts';
import { markCanary, type StableTarget } from './canary.ts';
import {
  DAEMONSET_API_VERSION,
  DAEMONSET_HASH_LABEL,
  type DaemonSetDeps,
  dsKey,
  TEMPLATE_GENERATION_LABEL,
  templateGeneration,
} from './context.ts';
import { burstReplicas } from './placement.ts';

const errText = (err: unknown) => (err as Error)?.message ?? String(err);
const isNamespaceTerminating = (err: unknown) =>
  /because it is being terminated/.test(errText(err)) && (err as { code?: number })?.code === 403;

/**
 * The pod template a DaemonSet creates from (CreatePodTemplate): its template (or `from`, a
 * revision's) with the daemon tolerations added, the revision hash (and the deprecated template
 * generation) in the labels, and for InPlaceIfPossible the InPlaceUpdateReady readiness gate.
 */
export function daemonPodTemplate(
  ds: DaemonSet,
  hash: string,
  from: PodTemplateSpec | undefined = ds.spec?.template,
): PodTemplateSpec {
  const template = structuredClone(from ?? {});
  template.spec ??= { containers: [] };
  template.spec.tolerations = daemonTolerations(template.spec as never) as never;
  template.metadata ??= {};
  const labels: Record<string, string> = { ...template.metadata.labels };
  const generation = templateGeneration(ds);
  if (generation !== undefined) labels[TEMPLATE_GENERATION_LABEL] = generation;
  if (hash) labels[DAEMONSET_HASH_LABEL] = hash;
  template.metadata.labels = labels;
  const rolling = ds.spec?.updateStrategy;
  if (
    rolling?.type === 'RollingUpdate' &&
    rolling.rollingUpdate?.rollingUpdateType === 'InPlaceIfPossible' &&
    !template.spec.readinessGates?.some((g) => g.conditionType === INPLACE_UPDATE_READY)
  )
    template.spec.readinessGates = [
      ...(template.spec.readinessGates ?? []),
      { conditionType: INPLACE_UPDATE_READY },
    ];
  return template;
}

/**
 * A new daemon pod for a node (GetPodFromTemplate): pinned to the node through its affinity for the
 * scheduler to bind, or (`bySchedulerAffinity` false) given the node's name and the daemonset
 * controller as its scheduler.
 */
export function newDaemonPod(
  ds: DaemonSet,
  template: PodTemplateSpec,
  node: string,
  bySchedulerAffinity = true,
): Pod {
  const pod = podFromTemplate(
    template,
    controllerRef({
      apiVersion: DAEMONSET_API_VERSION,
      kind: 'DaemonSet',
      metadata: { name: ds.metadata?.name ?? '', uid: ds.metadata?.uid ?? '' },
    }),
    ds.metadata?.namespace,
  );
  const spec = pod.spec!;
  if (bySchedulerAffinity) spec.affinity = replaceNodeNameAffinity(spec.affinity as never, node) as never;
  else {
    spec.schedulerName = 'kubernetes.io/daemonset-controller';
    spec.nodeName = node;
  }
  return pod;
}

/**
 * Creates and deletes a DaemonSet's pods (syncNodes): pods the preDelete hook holds are moved to
 * PreparingDelete instead of deleted; at most burstReplicas creates and deletes, creates in slow-start
 * batches (1, 2, 4 …) that stop at the first failing batch; each counted in the expectations, and a
 * create or delete that failed counted as seen so the next round is not held back for it.
 */
export class PodSync {
  private readonly d: DaemonSetDeps;
  private readonly controls: PodControls;

  constructor(d: DaemonSetDeps, controls: PodControls) {
    this.d = d;
    this.controls = controls;
  }

  async sync(
    ds: DaemonSet,
    toDelete: Pod[],
    nodes: string[],
    hash: string,
    stable?: StableTarget,
  ): Promise<void> {
    const key = dsKey(ds);
    const deletable = ds.spec?.lifecycle?.preDelete ? await this.preparingDelete(ds, toDelete) : toDelete;
    const burst = burstReplicas(ds);
    const creates = nodes.slice(0, burst);
    const deletes = deletable.slice(0, burst);
    const exp = this.d.scaleExpectations;
    if (creates.length) exp.expectCreations(key, creates.length);
    if (deletes.length) exp.expectDeletions(key, deletes.length);
    const errors: unknown[] = [];
    const template = daemonPodTemplate(ds, hash);
    // during a canary, a node it does not pick gets the stable revision's pod, one it picks a canary
    const stableTemplate = stable && daemonPodTemplate(ds, stable.hash, stable.template);
    const canaryTemplate = stable && structuredClone(template);
    if (canaryTemplate) markCanary(canaryTemplate, hash);
    const templateFor = (node: string) =>
      stable ? (stable.picks(node) ? canaryTemplate! : stableTemplate!) : template;
    const { successes, error } = await doItSlowly(creates.length, async (i) => {
      try {
        await this.create(
          ds,
          newDaemonPod(ds, templateFor(creates[i]!), creates[i]!, this.d.assignPodsByScheduler),
        );
      } catch (err) {
        // creations into a namespace being torn down all fail: not an error of ours
        if (isNamespaceTerminating(err)) return;
        exp.creationObserved(key);
        errors.push(err);
        throw err;
      }
    });
    const attempted = successes + errors.length;
    if (error !== undefined) for (let i = attempted; i < creates.length; i++) exp.creationObserved(key);
    await Promise.all(
      deletes.map(async (pod) => {
        try {
          await this.delete(ds, pod);
        } catch (err) {
          exp.deletionObserved(key);
          if (!isNotFound(err)) errors.push(err);
        }
      }),
    );
    if (errors.length === 1) throw errors[0];
    if (errors.length) throw new Error(`[${errors.map(errText).join(', ')}]`);
  }

  private async create(ds: DaemonSet, pod: Pod): Promise<void> {
    try {
      const created = await this.d.client.create(Resources.Pod, pod as unknown as KubeObject);
      this.d.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name}`);
    } catch (err) {
      if (!isNamespaceTerminating(err))
        this.d.event(ds, 'Warning', 'FailedCreate', `Error creating: ${errText(err)}`);
      throw err;
    }
  }

  private async delete(ds: DaemonSet, pod: Pod): Promise<void> {
    const name = pod.metadata?.name ?? '';
    try {
      await this.d.client.delete(Resources.Pod, pod.metadata?.namespace, name);
      this.d.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
    } catch (err) {
      if (!isNotFound(err)) this.d.event(ds, 'Warning', 'FailedDelete', `Error deleting: ${errText(err)}`);
      throw err;
    }
  }

  /** The pods that may go now; those the preDelete hook holds are marked PreparingDelete (syncWithPreparingDelete). */
  private async preparingDelete(ds: DaemonSet, pods: Pod[]): Promise<Pod[]> {
    const hook = ds.spec!.lifecycle!.preDelete!;
    const deletable: Pod[] = [];
    for (const pod of pods) {
      if (!isPodHooked(hook, pod)) {
        deletable.push(pod);
        continue;
      }
      const updated = await this.controls.lifecycle.updatePodLifecycle(
        pod,
        'PreparingDelete',
        hook.markPodNotReady === true,
      );
      if (updated) this.d.resourceVersionExpectations.expect(updated);
    }
    return deletable;
  }
}
