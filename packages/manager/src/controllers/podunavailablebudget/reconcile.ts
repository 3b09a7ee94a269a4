import {
  desiredAvailable,
  KruiseResources,
  POD_RELATED_PUB_ANNOTATION,
  type PodUnavailableBudget,
} from '@kruise/api';
import {
  type EventType,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  Resources,
} from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ControllerFinder } from '../../workload/controllerfinder/index.ts';
import { inChunks } from '../../workload/in-chunks.ts';
import type { KubeletContainerHash } from '../../workload/inplaceupdate/completion.ts';
import type { ManagerBudgets } from '../../workload/pub/manager-budgets.ts';
import { budgetPods } from './pods.ts';
import { countAvailable, currentRecords, nextStatus, type Records } from './status.ts';

/** The budget's kind for events. */
export const PUB_KIND = {
  apiVersion: `${KruiseResources.PodUnavailableBudget.group}/v1alpha1`,
  kind: 'PodUnavailableBudget',
};

/** What the PodUnavailableBudget reconciler works with. */
export interface PubReconcilerDeps {
  budgets: ManagerBudgets;
  finder: Pick<ControllerFinder, 'podsForRef' | 'expectedScaleForPods'>;
  /** The cached pods of a namespace. */
  podsInNamespace(namespace: string): Pod[];
  client: KubeClient;
  /** Records an event on a budget or a pod. */
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
  kubeletHash: KubeletContainerHash;
  /** Whether a recorded pod went down after its record and is available again. */
  isBack?: (pod: Pod, recordedMs: number) => boolean;
  now: () => number;
  log: Logger;
}

/** A budget or a pod with its kind, as events name their object. */
const asPub = (pub: PodUnavailableBudget) => ({ ...PUB_KIND, ...pub }) as KubeObject;
const asPod = (pod: Pod) => ({ apiVersion: 'v1', kind: 'Pod', ...pod }) as KubeObject;

/**
 * One PodUnavailableBudget brought up to date (upstream's podunavailablebudget-controller): its
 * pods marked `kruise.io/related-pub`, its expected, desired and current counts, the records of
 * allowed disruptions that still count, and from them how many more pods may go.
 */
export class PubReconciler {
  private readonly d: PubReconcilerDeps;

  constructor(deps: PubReconcilerDeps) {
    this.d = deps;
  }

  /** @returns when to look again (the earliest record to run out), if ever. */
  async reconcile(namespace: string, name: string): Promise<{ requeueAfterMs?: number }> {
    const pub = this.d.budgets.informer.get(`${namespace}/${name}`) as PodUnavailableBudget | undefined;
    if (!pub || pub.metadata?.deletionTimestamp) {
      this.d.budgets.keeper.forget(namespace, name);
      return {};
    }
    const now = this.d.now();
    const { pods, expected, workloadsWantNone } = await budgetPods(
      pub,
      this.d.finder,
      this.d.podsInNamespace,
    );
    if (!pods.length) this.d.event(asPub(pub), 'Normal', 'NoPods', 'No matching pods found');
    else await this.markRelatedPods(name, pods);
    let desired: number;
    try {
      // beyond upstream: workloads that want no pods (deleted, or scaled to 0) hold none back
      desired = workloadsWantNone ? 0 : desiredAvailable(pub, expected);
    } catch (err) {
      this.d.event(
        asPub(pub),
        'Warning',
        'CalculateExpectedPodCountFailed',
        `Failed to calculate the number of expected pods: ${(err as Error).message}`,
      );
      throw err;
    }
    let records: Records | undefined;
    await this.d.budgets.keeper.change(namespace, name, (copy) => {
      records = currentRecords(pods, copy.status, now, this.d.isBack);
      const currentAvailable = countAvailable(pods, records, this.d.kubeletHash);
      const status = nextStatus(
        copy,
        { currentAvailable, desiredAvailable: desired, totalReplicas: expected },
        records,
      );
      if (!status) return { write: false, result: undefined };
      copy.status = status;
      this.d.log.debug(
        { pub: `${namespace}/${name}`, ...status, disruptedPods: undefined, unavailablePods: undefined },
        'podunavailablebudget status updated',
      );
      return { write: true, result: undefined };
    });
    for (const pod of records?.notDeleted ?? [])
      this.d.event(
        asPod(pod),
        'Warning',
        'NotDeleted',
        `Pod was expected by PUB ${namespace}/${name} to be deleted but it wasn't`,
      );
    // a record kept runs out after now: look again just past it (a 0 would not requeue at all)
    return records?.recheckAt === undefined ? {} : { requeueAfterMs: records.recheckAt - now + 1 };
  }

  /** Marks pods that lack it with `kruise.io/related-pub` (pods created before the budget, or past the webhook). */
  private async markRelatedPods(pubName: string, pods: Pod[]): Promise<void> {
    const unmarked = pods.filter((p) => !p.metadata?.annotations?.[POD_RELATED_PUB_ANNOTATION]);
    await inChunks(unmarked, async (pod) => {
      try {
        await this.d.client.mergePatch(Resources.Pod, pod.metadata?.namespace, pod.metadata?.name ?? '', {
          metadata: { annotations: { [POD_RELATED_PUB_ANNOTATION]: pubName } },
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
  }
}
