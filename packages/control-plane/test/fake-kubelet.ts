import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
  Watch,
} from '@kubernetes/client-node';

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** What the fake kubelet does with a pod bound to a node. */
export interface FakeKubeletOptions {
  /** Whether the pod may become Running and Ready now (default: every pod). */
  ready?: (pod: V1Pod) => boolean;
  /** Milliseconds between a pod's binding and its Ready status (default 0). */
  readyAfterMs?: number;
}

/**
 * Plays kubelet's part in control-plane tests where no node runs pods, through the API only: a
 * pod bound to a node gets phase Running and Ready=True on its status subresource (when
 * `ready` allows it, after `readyAfterMs`), and a pod being deleted gracefully is removed at once
 * (as kubelet confirms a stopped pod with a zero grace period). `release` makes held pods ready.
 */
export async function startFakeKubelet(
  kc: KubeConfig,
  options: FakeKubeletOptions = {},
): Promise<{ release(): void; stop(): void }> {
  const core = kc.makeApiClient(CoreV1Api);
  const known = new Map<string, V1Pod>();
  const pending = new Set<string>();
  let stopped = false;
  const key = (p: V1Pod) => `${p.metadata?.namespace}/${p.metadata?.name}`;
  const markReady = async (pod: V1Pod) => {
    const k = key(pod);
    if (pending.has(k)) return;
    pending.add(k);
    if (options.readyAfterMs) await new Promise((r) => setTimeout(r, options.readyAfterMs));
    const now = new Date().toISOString();
    try {
      if (!stopped)
        await core.patchNamespacedPodStatus(
          {
            namespace: pod.metadata!.namespace!,
            name: pod.metadata!.name!,
            body: {
              status: {
                phase: 'Running',
                conditions: [
                  { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
                  { type: 'Initialized', status: 'True', lastTransitionTime: now },
                  { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
                  { type: 'Ready', status: 'True', lastTransitionTime: now },
                ],
              },
            },
          },
          MERGE,
        );
    } catch {
      // deleted meanwhile
    } finally {
      pending.delete(k);
    }
  };
  const handle = (pod: V1Pod) => {
    if (stopped) return;
    if (pod.metadata?.deletionTimestamp) {
      void core
        .deleteNamespacedPod({
          namespace: pod.metadata.namespace!,
          name: pod.metadata.name!,
          gracePeriodSeconds: 0,
        })
        .catch(() => {});
      return;
    }
    const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    if (pod.spec?.nodeName && !ready && (options.ready?.(pod) ?? true)) void markReady(pod);
  };
  const req = await new Watch(kc).watch(
    '/api/v1/pods',
    {},
    (type, pod: V1Pod) => {
      if (type === 'DELETED') known.delete(key(pod));
      else {
        known.set(key(pod), pod);
        handle(pod);
      }
    },
    () => {},
  );
  return {
    release: () => {
      for (const pod of known.values()) handle(pod);
    },
    stop: () => {
      stopped = true;
      req.abort();
    },
  };
}
