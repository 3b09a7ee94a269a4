import { KruiseResources, type PodUnavailableBudget } from '@kruise/api';
import {
  Indexers,
  type Informer,
  type KubeObject,
  type Manager,
  unlessNotFound,
  withoutManagedFields,
} from '@kruise/runtime';
import { synced } from '../cache-sync.ts';
import { PubBudgetKeeper } from './budget-keeper.ts';

/** The budgets as one kruise-manager process holds them: the shared informer and the keeper of writes. */
export interface ManagerBudgets {
  informer: Informer<PodUnavailableBudget & KubeObject>;
  keeper: PubBudgetKeeper;
  /** The cached budgets of a namespace. */
  inNamespace(namespace: string): PodUnavailableBudget[];
}

const NAMESPACE = 'namespace';
const byManager = new WeakMap<Manager, ManagerBudgets>();

/**
 * The process's PodUnavailableBudgets, one set shared by the pod webhooks (every replica) and the
 * budget's controller (the leader), so both start each write from the newest copy this process has
 * seen or written, one writer at a time per budget (upstream's GlobalCache and GlobalKeyedMutex).
 */
export function managerBudgets(manager: Manager): ManagerBudgets {
  const known = byManager.get(manager);
  if (known) return known;
  const resource = KruiseResources.PodUnavailableBudget;
  const informer = manager.informers.informerFor<PodUnavailableBudget & KubeObject>({
    resource,
    transform: withoutManagedFields,
  });
  informer.addIndex(NAMESPACE, Indexers.namespace);
  const keeper = new PubBudgetKeeper({
    synced: () => synced(informer),
    cached: (namespace, name) => informer.get(`${namespace}/${name}`),
    read: (namespace, name) =>
      unlessNotFound(manager.client.get<PodUnavailableBudget & KubeObject>(resource, namespace, name)),
    writeStatus: (pub) => manager.client.updateStatus(resource, pub as KubeObject),
  });
  const budgets: ManagerBudgets = {
    informer,
    keeper,
    inNamespace: (namespace) => informer.byIndex(NAMESPACE, namespace),
  };
  byManager.set(manager, budgets);
  return budgets;
}
