import type { PodUnavailableBudget } from '@kruise/api';
import { kubeletContainerHash } from '@kruise/kube-compat';
import {
  type ControllerBuilder,
  Indexers,
  type Informer,
  type KubeObject,
  type Manager,
  type Request,
  requestKey,
} from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { trimmedPods } from '../../informers.ts';
import { cachedFinderSources, newControllerFinder } from '../../workload/controllerfinder/index.ts';
import { managerBudgets } from '../../workload/pub/manager-budgets.ts';
import { isPubPodAvailable } from '../../workload/pub/pod-availability.ts';
import type { AddOptions } from '../add-options.ts';
import { DownTracker } from './down-tracker.ts';
import {
  type BudgetEventDeps,
  budgetsOfPod,
  budgetsOfWorkload,
  podUpdateRequests,
  snapshotOf,
  TERMINATING_DELAY_MS,
} from './event-handlers.ts';
import { PubReconciler } from './reconcile.ts';
import { budgetWorkloads } from './workloads.ts';

/** The controller's name (metrics, logs). */
export const NAME = 'podunavailablebudget';
const NAMESPACE = 'namespace';

const requestOf = (o: KubeObject): Request => ({
  namespace: o.metadata?.namespace ?? '',
  name: o.metadata?.name ?? '',
});

/**
 * Adds the PodUnavailableBudget controller (upstream's podunavailablebudget-controller, gates
 * PodUnavailableBudgetDeleteGate or PodUnavailableBudgetUpdateGate): budgets queue themselves;
 * pods queue their budget when created, deleted (beyond upstream), when they start terminating
 * (after 5 s) or change availability; unmarked pods queue the budgets that cover them (beyond
 * upstream, #1857); CloneSets, Advanced StatefulSets, Deployments and StatefulSets queue the
 * budget that covers them when their replicas change or they go.
 */
export function add(manager: Manager, { flags, tuning }: AddOptions): ControllerBuilder {
  const budgets = managerBudgets(manager);
  const pods = trimmedPods(manager) as unknown as Informer<KubeObject>;
  pods.addIndex(NAMESPACE, Indexers.namespace);
  const workloads = budgetWorkloads(manager);
  const finder = newControllerFinder(cachedFinderSources(manager, flags.webhookServiceNamespace));
  const recorder = manager.eventRecorder('podunavailablebudget-controller');
  const downs = new DownTracker();
  const available = (p: Pod) => isPubPodAvailable(p, kubeletContainerHash);
  const reconciler = new PubReconciler({
    budgets,
    finder,
    podsInNamespace: (ns) => pods.byIndex(NAMESPACE, ns) as unknown as Pod[],
    client: manager.client,
    event: (obj, type, reason, message) => recorder.event(obj, type, reason, message),
    kubeletHash: kubeletContainerHash,
    isBack: (pod, recordedMs) => downs.isBack(pod, recordedMs, available),
    now: Date.now,
    log: manager.log.child({ controller: NAME }),
  });
  const builder = manager.newController({
    name: NAME,
    workers: flags.podUnavailableBudgetWorkers,
    reconcile: async (_ctx, req) => {
      tuning.onReconcile?.(NAME, `${req.namespace}/${req.name}`);
      return reconciler.reconcile(req.namespace ?? '', req.name);
    },
  });
  const queue = builder.controller.queue;
  const deps: BudgetEventDeps = {
    budgets: (ns) => budgets.inNamespace(ns) as PodUnavailableBudget[],
    workloadOf: (pod) => workloads.workloadOf(pod),
    kubeletHash: kubeletContainerHash,
  };
  builder
    .watches(budgets.informer as unknown as Informer<KubeObject>, {
      add: requestOf,
      update: (_o, pub) => requestOf(pub),
      delete: requestOf,
    })
    .watches(pods, {
      add: (p) => budgetsOfPod(p as unknown as Pod, deps),
      update: (o, p) => {
        downs.observe(o as unknown as Pod, p as unknown as Pod, available);
        const { now, later } = podUpdateRequests(o as unknown as Pod, p as unknown as Pod, deps);
        for (const r of later) queue.addAfter(requestKey(r), TERMINATING_DELAY_MS);
        return now;
      },
      delete: (p) => {
        downs.forget(p as unknown as Pod);
        return budgetsOfPod(p as unknown as Pod, deps);
      },
    });
  for (const w of workloads.watched)
    builder.watches(w.informer, {
      add: (o) => budgetsOfWorkload(snapshotOf(o, w.apiVersion, w.kind), deps),
      update: (o, cur) =>
        o.spec?.replicas !== cur.spec?.replicas
          ? budgetsOfWorkload(snapshotOf(cur, w.apiVersion, w.kind), deps)
          : undefined,
      delete: (o) => budgetsOfWorkload(snapshotOf(o, w.apiVersion, w.kind), deps),
    });
  return builder;
}
