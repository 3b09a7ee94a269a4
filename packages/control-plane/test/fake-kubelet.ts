import type { ControlPlane } from '../src/index.ts';
import { rawRequest } from './helpers.ts';

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
    const now = new Date().toISOString();
    const status = {
      phase: 'Running',
      startTime: now,
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
        { type: 'Initialized', status: 'True', lastTransitionTime: now },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
        { type: 'Ready', status: 'True', lastTransitionTime: now },
      ],
      containerStatuses: pod.spec.containers.map((c: { name: string; image: string }) => ({
        name: c.name,
        image: c.image,
        imageID: '',
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: now } },
      })),
    };
    await rawRequest(this.cp, 'PATCH', `${path}/status`, {
      body: JSON.stringify({ status }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
  }
}
