import {
  type ControllerBuilder,
  type Informer,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type Logger,
  type Manager,
  type Request,
  Resources,
  requestFor,
  requestKey,
} from '@kruise/runtime';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import { trimmedPods } from '../../informers.ts';
import {
  barrierKey,
  barrierName,
  CONTAINER_LAUNCH_PRIORITY_COMPLETED_ANNOTATION,
  pendingPriorities,
} from '../../workload/launch-priority.ts';
import { podCondition } from '../../workload/pod-state.ts';
import type { AddOptions } from '../add-options.ts';

/** Upstream's concurrentReconciles of the container-launch-priority controller. */
const WORKERS = 4;

/**
 * Whether the pod may still need a priority released (upstream's shouldEnqueue without its
 * ConfigMap lookup, which the reconciler does): not marked completed, not ContainersReady, and some
 * container with a launch barrier not Ready yet.
 */
export function launchesInOrder(pod: Pod): boolean {
  return (
    pod.metadata?.annotations?.[CONTAINER_LAUNCH_PRIORITY_COMPLETED_ANNOTATION] !== 'true' &&
    podCondition(pod, 'ContainersReady')?.status !== 'True' &&
    pendingPriorities(pod).length > 0
  );
}

/**
 * Adds upstream's container-launch-priority controller: for a pod whose containers carry the
 * KRUISE_CONTAINER_BARRIER env (injected by the pod webhook), it creates the ConfigMap
 * `<pod>-barrier` owned by the pod and adds the key `p_<n>` of the highest priority whose containers
 * are not all Ready, so kubelet starts the containers priority by priority; once the lowest priority
 * is released it annotates the pod `apps.kruise.io/container-launch-priority-completed: "true"` and
 * leaves it alone. Not behind a gate (upstream's is not); without the pod webhook no pod has barriers.
 */
export function add(manager: Manager, _options: AddOptions): ControllerBuilder {
  const pods = trimmedPods(manager);
  const reconciler = new LaunchPriorityReconciler({ client: manager.client, pods });
  const launching = (p: Pod) => (launchesInOrder(p) ? requestFor(p) : undefined);
  return manager
    .newController({
      name: 'container-launch-priority',
      workers: WORKERS,
      reconcile: (ctx, req) => reconciler.reconcile(ctx.log, req),
    })
    .watches(pods, { add: launching, update: (_o, p) => launching(p) });
}

/** What the launch-priority reconciler works with. */
export interface LaunchPriorityDeps {
  client: KubeClient;
  /** The manager's pod cache (trimmed pods keep the barrier envs and the completed annotation). */
  pods: Informer<Pod>;
}

/**
 * Releases a pod's launch priorities one at a time. The barrier ConfigMap is read from the API
 * server, not cached: a cluster's ConfigMaps are many and large, and only pods that are starting
 * are reconciled (ADR 0035).
 */
export class LaunchPriorityReconciler {
  private readonly d: LaunchPriorityDeps;

  constructor(deps: LaunchPriorityDeps) {
    this.d = deps;
  }

  /** One pass over the pod `req` names. */
  async reconcile(log: Logger, req: Request): Promise<void> {
    const pod = this.d.pods.get(requestKey(req));
    if (!pod?.metadata?.name) return;
    if (pod.metadata.annotations?.[CONTAINER_LAUNCH_PRIORITY_COMPLETED_ANNOTATION] === 'true') return;
    const barrier = (await this.barrier(req)) ?? (await this.createBarrier(log, pod));
    const pending = pendingPriorities(pod);
    const released = (p: number) => barrier.data?.[barrierKey(p)] !== undefined;
    const lowest = pending[0];
    const next = pending.at(-1);
    // Nothing left to release, or the lowest priority is out already: every container may start.
    if (lowest === undefined || next === undefined || released(lowest)) return this.complete(log, req);
    if (!released(next)) {
      await this.d.client.mergePatch(Resources.ConfigMap, req.namespace, barrierName(req.name), {
        data: { [barrierKey(next)]: 'true' },
      });
      log.debug({ pod: req.name, priority: next }, 'launch priority released');
    }
    if (next === lowest) await this.complete(log, req);
  }

  /** The pod's barrier ConfigMap, or undefined when it does not exist. */
  private async barrier(req: Request): Promise<ConfigMap | undefined> {
    try {
      return (await this.d.client.get(
        Resources.ConfigMap,
        req.namespace,
        barrierName(req.name),
      )) as ConfigMap;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Creates the empty barrier owned by the pod (garbage-collected with it), as upstream does. */
  private async createBarrier(log: Logger, pod: Pod): Promise<ConfigMap> {
    const { name = '', namespace = '', uid = '' } = pod.metadata ?? {};
    try {
      const created = (await this.d.client.create(Resources.ConfigMap, {
        metadata: {
          name: barrierName(name),
          namespace,
          ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name, uid }],
        },
      })) as ConfigMap;
      log.debug({ pod: name, configmap: barrierName(name) }, 'barrier created');
      return created;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const existing = await this.barrier({ namespace, name });
      if (!existing) throw err;
      return existing;
    }
  }

  /** Marks the pod launch-priority completed: the controller leaves it alone from then on. */
  private async complete(log: Logger, req: Request): Promise<void> {
    try {
      await this.d.client.mergePatch(Resources.Pod, req.namespace, req.name, {
        metadata: { annotations: { [CONTAINER_LAUNCH_PRIORITY_COMPLETED_ANNOTATION]: 'true' } },
      });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    log.debug({ pod: req.name }, 'launch priority completed');
  }
}
