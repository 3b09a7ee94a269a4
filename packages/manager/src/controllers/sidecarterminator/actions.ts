import { type ContainerRecreateRequest, KruiseResources, SIDECAR_TERMINATED_CONDITION } from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import {
  type EventRecorder,
  type Informer,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  objectPath,
  Resources,
  retryOnConflict,
} from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { containersSucceeded, mainAndSidecars, quickExitImage, uncompleted } from './sidecars.ts';

/** The event reason of every SidecarTerminator action (upstream's). */
export const SIDECAR_TERMINATOR_REASON = 'SidecarTerminator';
/** The message of the `SidecarTerminated` condition (upstream's). */
export const SIDECAR_TERMINATED_MESSAGE = 'Terminated by Sidecar Terminator';

/** The one ContainerRecreateRequest SidecarTerminator creates for a pod. */
export const sidecarTerminationName = (pod: Pod) => `sidecar-termination-${pod.metadata?.uid ?? ''}`;

/** Go's `%v` of a string slice: `[a b]`. */
const goList = (names: string[]) => `[${names.join(' ')}]`;

/** What the actions write with. */
export interface ActionDeps {
  client: KubeClient;
  crrs: Informer<ContainerRecreateRequest>;
  recorder: EventRecorder;
}

/** The three ways SidecarTerminator stops sidecars, as upstream's actions. */
export class SidecarTerminatorActions {
  private readonly d: ActionDeps;

  constructor(deps: ActionDeps) {
    this.d = deps;
  }

  /**
   * Creates `sidecar-termination-<podUID>`, owned by the pod, to kill the sidecars still running
   * (forceRecreate, failurePolicy Ignore), and records the event; nothing when the request exists
   * already (one per pod, whatever its phase).
   */
  async recreate(log: Logger, pod: Pod, sidecars: Set<string>): Promise<void> {
    const names = uncompleted(pod, sidecars);
    if (names.length === 0) return;
    const { namespace = '', name = '', uid = '' } = pod.metadata ?? {};
    const crrName = sidecarTerminationName(pod);
    if (this.d.crrs.get(`${namespace}/${crrName}`)) return;
    try {
      await this.d.client.create(KruiseResources.ContainerRecreateRequest, {
        metadata: {
          namespace,
          name: crrName,
          ownerReferences: [
            { apiVersion: 'v1', kind: 'Pod', name, uid, controller: true, blockOwnerDeletion: true },
          ],
        },
        spec: {
          podName: name,
          containers: names.map((n) => ({ name: n })),
          strategy: { forceRecreate: true, failurePolicy: 'Ignore' },
        },
      } as KubeObject);
    } catch (err) {
      // created by an earlier pass the cache has not shown yet
      if (isAlreadyExists(err)) return;
      throw err;
    }
    log.debug({ pod: name, crr: crrName }, 'sidecar termination requested');
    this.event(pod, `Kruise SidecarTerminator is trying to terminate sidecar ${goList(names)} using crr`);
  }

  /**
   * Virtual kubelet: replaces each running sidecar's image with its quick-exit image (a fresh read
   * and update, again on a conflict), and records the event when the pod changed.
   */
  async replaceImages(log: Logger, pod: Pod, sidecars: Set<string>): Promise<void> {
    const names = uncompleted(pod, sidecars);
    if (names.length === 0) return;
    const { namespace = '', name = '' } = pod.metadata ?? {};
    const changed = await retryOnConflict(async () => {
      let live: Pod;
      try {
        live = (await this.d.client.get(Resources.Pod, namespace, name)) as Pod;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
      let edited = false;
      for (const c of live.spec?.containers ?? []) {
        const image = quickExitImage(c);
        if (!names.includes(c.name) || c.image === image) continue;
        c.image = image;
        edited = true;
      }
      if (edited) await this.d.client.update(Resources.Pod, live as KubeObject);
      return edited;
    });
    if (!changed) return;
    log.debug({ pod: name }, 'sidecar images replaced');
    this.event(
      pod,
      `Kruise SidecarTerminator is trying to terminate sidecar ${goList(names)} using in-place update`,
    );
  }

  /**
   * Ends a pod whose ignore-exit-code sidecars still run: phase Succeeded when every main container
   * exited 0, else Failed, with the condition `SidecarTerminated=True` (a strategic merge patch of
   * pods/status, which keeps the other conditions); nothing once the pod is Succeeded or Failed.
   */
  async markTerminated(log: Logger, pod: Pod): Promise<void> {
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return;
    const phase = containersSucceeded(pod, mainAndSidecars(pod).main) ? 'Succeeded' : 'Failed';
    const { namespace = '', name = '' } = pod.metadata ?? {};
    await this.d.client.request('PATCH', objectPath(Resources.Pod, namespace, name, 'status'), {
      contentType: 'application/strategic-merge-patch+json',
      body: {
        status: {
          phase,
          conditions: [
            {
              type: SIDECAR_TERMINATED_CONDITION,
              status: 'True',
              lastTransitionTime: kubeTime(),
              message: SIDECAR_TERMINATED_MESSAGE,
            },
          ],
        },
      },
    });
    log.debug({ pod: name, phase }, 'job pod terminated');
  }

  private event(pod: Pod, message: string): void {
    this.d.recorder.event(
      { apiVersion: 'v1', kind: 'Pod', ...pod } as KubeObject,
      'Normal',
      SIDECAR_TERMINATOR_REASON,
      message,
    );
  }
}
