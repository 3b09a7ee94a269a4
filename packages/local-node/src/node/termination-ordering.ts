import type { Container, PodSpec } from 'kubernetes-types/core/v1.js';

/** Whether an init container is a native sidecar (kubelet's IsRestartableInitContainer). */
export function isRestartableInit(c: Pick<Container, 'restartPolicy'> | undefined): boolean {
  return c?.restartPolicy === 'Always';
}

/** Whether the pod has a native sidecar (kubelet orders the termination of such pods). */
export function hasRestartableInit(spec: Partial<PodSpec>): boolean {
  return (spec.initContainers ?? []).some(isRestartableInit);
}

/**
 * kubelet's terminationOrdering for a pod with native sidecars: the app containers stop at once;
 * each sidecar waits until every app container and every sidecar declared after it has stopped,
 * so the sidecars stop after the app, in reverse order of their declaration. Containers not
 * running are counted as stopped from the start.
 */
export class TerminationOrdering {
  private readonly done = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  private readonly prereqs = new Map<string, string[]>();

  constructor(spec: Partial<PodSpec>, running: Iterable<string>) {
    const live = new Set(running);
    const track = (name: string) => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.done.set(name, { promise, resolve });
      if (!live.has(name)) resolve();
    };
    const apps = (spec.containers ?? []).map((c) => c.name);
    for (const name of apps) track(name);
    let later: string | undefined;
    for (const ic of [...(spec.initContainers ?? [])].reverse()) {
      track(ic.name);
      if (!isRestartableInit(ic)) continue;
      this.prereqs.set(ic.name, later ? [...apps, later] : apps);
      later = ic.name;
    }
  }

  /** Waits (at most `seconds`) until the containers `name` must outlive have stopped. */
  async waitForTurn(name: string, seconds: number): Promise<void> {
    const waits = (this.prereqs.get(name) ?? []).map((n) => this.done.get(n)!.promise);
    if (!waits.length) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(waits),
      new Promise<void>((r) => {
        timer = setTimeout(r, seconds * 1000);
      }),
    ]);
    clearTimeout(timer);
  }

  /** `name` has stopped: the sidecars waiting on it may go on. */
  terminated(name: string): void {
    this.done.get(name)?.resolve();
  }
}
