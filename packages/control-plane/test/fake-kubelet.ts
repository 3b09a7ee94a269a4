import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
  Watch,
} from '@kubernetes/client-node';

import type { ControlPlane } from '../src/index.ts';
import { rawRequest } from './helpers.ts';

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
    try {
      if (!stopped)
        await core.patchNamespacedPodStatus(
          {
            namespace: pod.metadata!.namespace!,
            name: pod.metadata!.name!,
            body: { status: runningReadyStatus(pod as never) },
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

/** The status a kubelet reports for a pod whose containers all started and are ready. */
export function runningReadyStatus(pod: { spec?: { containers?: { name: string; image?: string }[] } }) {
  const now = new Date().toISOString();
  return {
    phase: 'Running',
    startTime: now,
    conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({
      type,
      status: 'True',
      lastTransitionTime: now,
    })),
    containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
      name: c.name,
      image: c.image ?? '',
      imageID: '',
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: now } },
    })),
  };
}

/**
 * Plays the kubelet's part for pods the scheduler bound (no kubelet runs in these tests): through
 * the status subresource it marks them Running and Ready — all of them (`auto`) or the ones named
 * with `ready` — and it finishes the graceful deletion of terminating pods, as a kubelet does once
 * their containers stopped.
 */
export class FakeKubelet {
  private readonly cp: ControlPlane;
  private readonly namespace: string;
  private readonly wanted = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  /** Marks every bound pod ready when true; else only those passed to `ready`. */
  auto: boolean;

  constructor(cp: ControlPlane, namespace = 'default', auto = true) {
    this.cp = cp;
    this.namespace = namespace;
    this.auto = auto;
    this.timer = setInterval(() => void this.tick(), 40);
  }

  /** Lets the named pods become Running and Ready once bound. */
  ready(...names: string[]): void {
    for (const n of names) this.wanted.add(n);
  }

  /** Stops acting. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const list = await rawRequest(this.cp, 'GET', `/api/v1/namespaces/${this.namespace}/pods`);
      for (const pod of list.body?.items ?? []) await this.handle(pod);
    } catch {
      // the control plane is stopping
    } finally {
      this.busy = false;
    }
  }

  private async handle(pod: any): Promise<void> {
    const name: string = pod.metadata.name;
    const path = `/api/v1/namespaces/${this.namespace}/pods/${name}`;
    if (pod.metadata.deletionTimestamp) {
      await rawRequest(this.cp, 'DELETE', `${path}?gracePeriodSeconds=0`);
      return;
    }
    if (!pod.spec.nodeName || pod.status?.phase === 'Running') return;
    if (!this.auto && !this.wanted.has(name)) return;
    const status = runningReadyStatus(pod);
    await rawRequest(this.cp, 'PATCH', `${path}/status`, {
      body: JSON.stringify({ status }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
  }
}
