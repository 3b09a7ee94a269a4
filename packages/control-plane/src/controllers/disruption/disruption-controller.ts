import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { ChangeEvent } from '../../store/store.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import { countBudget, DELETION_TIMEOUT_MS, PDB_RESOURCE } from './budget.ts';
import { budgetStatus } from './status.ts';

const DISRUPTION_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:disruption-controller',
  groups: ['system:serviceaccounts'],
};

/**
 * kube-controller-manager's disruption controller: keeps every PodDisruptionBudget's status
 * (expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed, disruptedPods and the
 * DisruptionAllowed condition) in step with its pods and their controllers' scale.
 */
export class DisruptionController extends BuiltinController {
  private readonly dirty = new Set<string>();
  private scheduled = false;
  private readonly unsubscribe: () => void;
  private readonly recheck: NodeJS.Timeout;

  constructor(deps: ControllerDeps) {
    super(deps);
    this.unsubscribe = deps.store.subscribe('*', { onChange: (e) => this.observe(e) });
    for (const { obj } of deps.store.list(PDB_RESOURCE)) this.mark(obj.metadata?.namespace);
    // Evictions not followed by a deletion stop counting after DeletionTimeout.
    this.recheck = setInterval(() => {
      for (const { obj } of deps.store.list(PDB_RESOURCE))
        if (Object.keys(obj.status?.disruptedPods ?? {}).length) this.mark(obj.metadata?.namespace);
    }, DELETION_TIMEOUT_MS / 4);
    this.recheck.unref();
  }

  /** Stops watching. */
  stop(): void {
    this.unsubscribe();
    clearInterval(this.recheck);
  }

  private observe(e: ChangeEvent): void {
    if (!e.namespace) return;
    // Pods, budgets, and the controllers whose scale budgets read.
    if (e.resource === PDB_RESOURCE || this.store.count(PDB_RESOURCE) > 0) {
      if (e.resource === PDB_RESOURCE || this.store.list(PDB_RESOURCE, e.namespace).length)
        this.mark(e.namespace);
    }
  }

  private mark(namespace: string): void {
    this.dirty.add(namespace);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const namespaces = [...this.dirty];
      this.dirty.clear();
      for (const ns of namespaces) void this.sync(ns);
    });
  }

  /** The budget's status now (counted from the latest budget, so evictions are never undone). */
  private statusOf(pdb: KubeObject): KubeObject {
    try {
      return budgetStatus(pdb, countBudget(this.store, this.registry, pdb, Date.now()));
    } catch (err) {
      return budgetStatus(pdb, undefined, (err as Error).message);
    }
  }

  private async sync(namespace: string): Promise<void> {
    const type = this.registry.byResource('policy', 'poddisruptionbudgets')!;
    for (const { obj: pdb } of this.store.list(PDB_RESOURCE, namespace)) {
      if (pdb.metadata?.deletionTimestamp) continue;
      try {
        await this.objects.update(
          type,
          namespace,
          pdb.metadata?.name,
          { patch: (cur) => ({ ...cur, status: this.statusOf(cur) }) },
          { user: DISRUPTION_USER, subresource: 'status' },
        );
      } catch {
        // changed or deleted meanwhile: its own event brings it back
      }
    }
  }
}
