import { KRUISE_POD_READY_CONDITION, kubeTime } from '@kruise/api';
import {
  Controller,
  type Informer,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  type Metrics,
  objectKey,
  Resources,
  retryOnConflict,
  splitKey,
} from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { hasReadinessGate } from '../../workload/podreadiness/conditions.ts';
import { mutableStatus, podCondition } from '../../workload/pod-state.ts';

/** What the pod-readiness controller works with. */
export interface PodReadinessDeps {
  client: KubeClient;
  pods: Informer<KubeObject>;
  workers: number;
  logger: Logger;
  metrics?: Metrics;
  now?: () => number;
}

/** Whether the pod has the KruisePodReady readiness gate but no such condition yet. */
const waitsForCondition = (pod: Pod) =>
  !pod.metadata?.deletionTimestamp &&
  hasReadinessGate(pod, KRUISE_POD_READY_CONDITION) &&
  podCondition(pod, KRUISE_POD_READY_CONDITION) === undefined;

/**
 * Upstream's pod-readiness controller: a pod with the `KruisePodReady` readiness gate (the pod
 * webhook adds it to pods of Kruise workloads) and no such condition gets it True, so kubelet can
 * report the pod Ready; lifecycle hooks and ContainerRecreateRequests turn it False while they
 * hold the pod.
 */
export class PodReadinessController {
  readonly controller: Controller;
  private readonly d: PodReadinessDeps;

  constructor(deps: PodReadinessDeps) {
    this.d = deps;
    this.controller = new Controller({
      name: 'pod-readiness',
      workers: deps.workers,
      logger: deps.logger,
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
      reconcile: (_ctx, key) => this.reconcile(key),
    });
    const enqueue = (p: KubeObject) => {
      if (waitsForCondition(p as unknown as Pod)) this.controller.enqueue(objectKey(p));
    };
    deps.pods.addEventHandler({ add: enqueue, update: (_o, p) => enqueue(p) });
  }

  private async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    await retryOnConflict(async () => {
      let pod: Pod;
      try {
        pod = (await this.d.client.get(Resources.Pod, namespace, name)) as unknown as Pod;
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      if (!waitsForCondition(pod)) return;
      const status = mutableStatus(pod);
      status.conditions = [
        ...(status.conditions ?? []),
        {
          type: KRUISE_POD_READY_CONDITION,
          status: 'True',
          lastTransitionTime: kubeTime((this.d.now ?? Date.now)()),
        },
      ];
      await this.d.client.updateStatus(Resources.Pod, pod as unknown as KubeObject);
    });
  }
}
