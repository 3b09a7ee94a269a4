import {
  type ContainerRecreateRequest,
  KruiseResources,
  VIRTUAL_KUBELET_LABEL,
  VIRTUAL_KUBELET_VALUE,
} from '@kruise/api';
import {
  type ControllerBuilder,
  type EventRecorder,
  type Informer,
  type KubeClient,
  type Logger,
  type Manager,
  type Request,
  requestFor,
  requestKey,
} from '@kruise/runtime';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { trimmedNodes, trimmedPods } from '../../informers.ts';
import type { AddOptions } from '../add-options.ts';
import { SidecarTerminatorActions } from './actions.ts';
import { containersCompleted, needsSidecarsStopped, sidecarsByAction } from './sidecars.ts';

/** Upstream's controller name, also the events' component. */
const NAME = 'sidecarterminator-controller';

/**
 * Adds upstream's SidecarTerminator controller (gate SidecarTerminator, which needs KruiseDaemon):
 * a pod with restartPolicy Never or OnFailure whose main containers are done gets its
 * `KRUISE_TERMINATE_SIDECAR_WHEN_JOB_EXIT` sidecars stopped. Queued by pod creations and changes
 * that leave the pod in need of it, as upstream's pod handler.
 */
export function add(manager: Manager, { flags }: AddOptions): ControllerBuilder {
  const pods = trimmedPods(manager);
  const reconciler = new SidecarTerminatorReconciler({
    client: manager.client,
    pods,
    nodes: trimmedNodes(manager),
    crrs: manager.informers.informerFor<ContainerRecreateRequest>({
      resource: KruiseResources.ContainerRecreateRequest,
    }),
    recorder: manager.eventRecorder(NAME),
  });
  const interesting = (p: Pod) => (needsSidecarsStopped(p) ? requestFor(p) : undefined);
  return manager
    .newController({
      name: NAME,
      workers: flags.sidecarTerminatorWorkers,
      reconcile: (ctx, req) => reconciler.reconcile(ctx.log, req),
    })
    .watches(pods, {
      add: interesting,
      update: (o, n) =>
        o.metadata?.resourceVersion === n.metadata?.resourceVersion ? undefined : interesting(n),
    });
}

/** What the SidecarTerminator reconciler works with. */
export interface SidecarTerminatorDeps {
  client: KubeClient;
  /** The manager's pod cache (trimmed pods keep the restart policy, sidecar marks and exit codes). */
  pods: Informer<Pod>;
  /** The manager's Node cache: a node labelled `type=virtual-kubelet` gets the image action. */
  nodes: Informer<Node>;
  /** The ContainerRecreateRequest cache: one request per pod, never a second. */
  crrs: Informer<ContainerRecreateRequest>;
  recorder: EventRecorder;
}

/** Stops the sidecars of one job-like pod whose main containers are done (upstream's doReconcile). */
export class SidecarTerminatorReconciler {
  private readonly d: SidecarTerminatorDeps;
  private readonly actions: SidecarTerminatorActions;

  constructor(deps: SidecarTerminatorDeps) {
    this.d = deps;
    this.actions = new SidecarTerminatorActions(deps);
  }

  /** One pass over the pod `req` names. */
  async reconcile(log: Logger, req: Request): Promise<void> {
    const pod = this.d.pods.get(requestKey(req));
    if (!pod || !needsSidecarsStopped(pod)) return;
    const sidecars = sidecarsByAction(pod, this.onVirtualKubelet(pod));
    await this.actions.replaceImages(log, pod, sidecars.inPlaceUpdate);
    await this.actions.recreate(log, pod, sidecars.normal);
    if (
      sidecars.ignoreExitCode.size === 0 ||
      !containersCompleted(pod, sidecars.normal) ||
      !containersCompleted(pod, sidecars.inPlaceUpdate)
    )
      return;
    // The pod's phase follows its main containers, whatever the remaining sidecars exit with.
    await this.actions.markTerminated(log, pod);
    await this.actions.recreate(log, pod, sidecars.ignoreExitCode);
  }

  /** Whether the pod's node is a virtual kubelet; throws (the pod is queued again) while the node is not cached. */
  private onVirtualKubelet(pod: Pod): boolean {
    const nodeName = pod.spec?.nodeName ?? '';
    const node = this.d.nodes.get(nodeName);
    if (!node) throw new Error(`node "${nodeName}" not found`);
    return node.metadata?.labels?.[VIRTUAL_KUBELET_LABEL] === VIRTUAL_KUBELET_VALUE;
  }
}
