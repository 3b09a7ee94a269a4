import type { CriClient } from '@kruise/cri/client';
import type { HandlerTarget } from '@kruise/cri/lifecycle-handler';
import type { Container, Probe } from 'kubernetes-types/core/v1.js';
import { type ProbeOutcome, runProbe } from './probe-check.ts';

/** kubelet's three probe kinds, in the words its events use. */
export type ProbeType = 'Startup' | 'Readiness' | 'Liveness';

/** A running container the prober looks after. */
export interface ProbedContainer {
  /** The pod's UID (changes are reported by it). */
  podUid: string;
  id: string;
  spec: Container;
  /** When the container started (ms since the epoch): initialDelaySeconds counts from it. */
  startedAtMs: number;
  /** The pod's IP, which httpGet, tcpSocket and grpc probes address. */
  podIP: string;
}

/** What the prober works with. */
export interface ProberDeps {
  cri: CriClient;
  /** A result changed (ready, started, or a liveness/startup failure to act on). */
  onChange(podUid: string): void;
  /** A probe failed once: kubelet's `Unhealthy` event. */
  onUnhealthy(podUid: string, container: string, message: string): void;
  /** Runs one probe (default: runProbe against the runtime and the pod's address). */
  check?: (probe: Probe, target: HandlerTarget) => Promise<ProbeOutcome>;
}

interface Worker {
  type: ProbeType;
  probe: Probe;
  target: ProbedContainer;
  timer?: NodeJS.Timeout;
  /** The current result (undefined: none yet). */
  result?: boolean;
  lastRun?: boolean;
  run: number;
  stopped: boolean;
}

/**
 * kubelet's prober manager: one worker per probe of a running container, probing every
 * periodSeconds once initialDelaySeconds have passed since the container started; a result
 * changes only after successThreshold successes or failureThreshold failures in a row. Until the
 * startup probe succeeds the others do not run; readiness starts as failed and liveness as
 * succeeded; a liveness or startup failure stops its worker and is reported for the runner to kill
 * the container.
 */
export class Prober {
  private readonly d: ProberDeps;
  /** Workers per container ID. */
  private readonly workers = new Map<string, Worker[]>();

  constructor(deps: ProberDeps) {
    this.d = deps;
  }

  /** Brings the workers of one pod in line with its running containers. */
  update(podUid: string, running: ProbedContainer[]): void {
    const ids = new Set(running.map((c) => c.id));
    for (const [id, ws] of this.workers) if (ws[0]!.target.podUid === podUid && !ids.has(id)) this.remove(id);
    for (const c of running) {
      if (this.workers.has(c.id)) continue;
      const ws: Worker[] = [];
      const add = (type: ProbeType, probe: Probe | undefined) => {
        if (probe) ws.push({ type, probe, target: c, run: 0, stopped: false });
      };
      add('Startup', c.spec.startupProbe);
      add('Readiness', c.spec.readinessProbe);
      add('Liveness', c.spec.livenessProbe);
      if (!ws.length) continue;
      this.workers.set(c.id, ws);
      for (const w of ws) this.schedule(w, 0);
    }
  }

  private worker(id: string, type: ProbeType): Worker | undefined {
    return this.workers.get(id)?.find((w) => w.type === type);
  }

  /** Whether the container has started (its startup probe succeeded, or it has none). */
  started(id: string): boolean {
    const w = this.worker(id, 'Startup');
    return !w || w.result === true;
  }

  /** Whether the container's startup probe has succeeded (false too while no worker probes it yet). */
  startupSucceeded(id: string): boolean {
    return this.worker(id, 'Startup')?.result === true;
  }

  /** Whether the container is ready as far as its probes go (readiness succeeded, or none). */
  ready(id: string): boolean {
    if (!this.started(id)) return false;
    const w = this.worker(id, 'Readiness');
    return !w || w.result === true;
  }

  /** A liveness or startup failure the runner must act on (kill the container), with the kill's reason. */
  failure(id: string): { type: ProbeType; graceSeconds?: number } | undefined {
    for (const type of ['Liveness', 'Startup'] as const) {
      const w = this.worker(id, type);
      if (w?.result === false) return { type, graceSeconds: w.probe.terminationGracePeriodSeconds };
    }
    return undefined;
  }

  private schedule(w: Worker, delayMs: number): void {
    if (w.stopped) return;
    w.timer = setTimeout(() => void this.tick(w), delayMs);
  }

  private async tick(w: Worker): Promise<void> {
    const p = w.probe;
    const period = (p.periodSeconds ?? 10) * 1000;
    const next = () => this.schedule(w, period);
    if (w.stopped) return;
    const since = Date.now() - w.target.startedAtMs;
    const delay = (p.initialDelaySeconds ?? 0) * 1000;
    if (since < delay) return this.schedule(w, delay - since);
    // Liveness and readiness wait for the startup probe; a started container is not probed for startup again.
    if (w.type !== 'Startup' && !this.started(w.target.id)) return next();
    if (w.type === 'Startup' && w.result === true) return;
    const check =
      this.d.check ?? ((probe: Probe, target: HandlerTarget) => runProbe(this.d.cri, probe, target));
    const outcome = await check(p, {
      containerId: w.target.id,
      containerName: w.target.spec.name,
      podIP: w.target.podIP,
      ports: w.target.spec.ports,
    });
    if (w.stopped) return;
    if (!outcome.ok)
      this.d.onUnhealthy(w.target.podUid, w.target.spec.name, `${w.type} probe failed: ${outcome.output}`);
    w.run = w.lastRun === outcome.ok ? w.run + 1 : 1;
    w.lastRun = outcome.ok;
    const threshold = outcome.ok ? (p.successThreshold ?? 1) : (p.failureThreshold ?? 3);
    if (w.run >= threshold && w.result !== outcome.ok) {
      w.result = outcome.ok;
      this.d.onChange(w.target.podUid);
      // A failed liveness or startup probe ends with the container: stop until it is replaced.
      if (!outcome.ok && w.type !== 'Readiness') return;
    }
    next();
  }

  private remove(id: string): void {
    for (const w of this.workers.get(id) ?? []) {
      w.stopped = true;
      clearTimeout(w.timer);
    }
    this.workers.delete(id);
  }

  /** Stops the workers of a pod that is gone. */
  forgetPod(podUid: string): void {
    for (const [id, ws] of this.workers) if (ws[0]!.target.podUid === podUid) this.remove(id);
  }

  /** Stops every worker. */
  stop(): void {
    for (const id of [...this.workers.keys()]) this.remove(id);
  }
}
