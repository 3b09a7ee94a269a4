import { type ImageTagSpec, type ImageTagStatus, joinImageNameTag } from '@kruise/api';
import { kubeTime, parseImageReference } from '@kruise/kube-compat';
import type { Logger } from '@kruise/runtime/log/logger';
import type { Credential } from '../auth/keyring.ts';
import type { ImageService } from '../runtime/image-service.ts';
import type { PullOutcome } from './events.ts';
import type { Semaphore } from './semaphore.ts';

/** What a worker reports as it goes. */
export type StatusListener = (status: ImageTagStatus) => void;

/** Shared limits and services of all workers. */
export interface WorkerContext {
  images: ImageService;
  global: Semaphore;
  perRegistry: (registry: string) => Semaphore;
  credentials: (image: string) => Promise<Credential[]>;
  log: Logger;
  /** Result of each finished pull, for metrics and events. */
  onFinished?: (result: PullOutcome) => void;
  /** Backoff between attempts (default 1 s doubling up to 30 s). */
  backoff?: { initialMs: number; maxMs: number };
}

const DEADLINE_MESSAGE = 'pulling exceeds the activeDeadlineSeconds';

/**
 * Pulls one version of one tag: Waiting until a slot is free, then Pulling with live progress;
 * up to backoffLimit + 1 attempts, each bounded by timeoutSeconds and the time left before
 * activeDeadlineSeconds; Succeeded with the image ID, or Failed with the last error. `stop()`
 * cancels a pull in flight.
 */
export class PullWorker {
  readonly name: string;
  readonly tag: ImageTagSpec;
  private readonly ctx: WorkerContext;
  private readonly listener: StatusListener;
  private readonly abort = new AbortController();
  private status: ImageTagStatus;
  readonly done: Promise<void>;
  private readonly sandbox:
    | { labels?: Record<string, string>; annotations?: Record<string, string> }
    | undefined;

  constructor(
    name: string,
    tag: ImageTagSpec,
    sandbox: PullWorker['sandbox'],
    ctx: WorkerContext,
    listener: StatusListener,
  ) {
    this.name = name;
    this.tag = tag;
    this.sandbox = sandbox;
    this.ctx = ctx;
    this.listener = listener;
    this.status = { tag: tag.tag, phase: 'Waiting', version: tag.version ?? 0 };
    this.done = this.run();
  }

  /** The latest status. */
  get current(): ImageTagStatus {
    return this.status;
  }

  /** Whether the worker has finished (Succeeded or Failed). */
  get finished(): boolean {
    return this.status.phase === 'Succeeded' || this.status.phase === 'Failed';
  }

  /** Cancels the worker (a pull in flight is aborted; no further status is reported). */
  stop(): void {
    this.abort.abort(new Error('worker stopped'));
  }

  private report(patch: Partial<ImageTagStatus>): void {
    if (this.abort.signal.aborted) return;
    this.status = { ...this.status, ...patch };
    this.listener(this.status);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.abort.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          resolve();
        },
        { once: true },
      );
    });
  }

  private async run(): Promise<void> {
    const image = joinImageNameTag(this.name, this.tag.tag);
    const registry = parseImageReference(image).domain;
    const started = Date.now();
    this.report({ phase: 'Waiting' });
    let releaseGlobal: (() => void) | undefined;
    let releaseRegistry: (() => void) | undefined;
    try {
      releaseGlobal = await this.ctx.global.acquire(this.abort.signal);
      releaseRegistry = await this.ctx.perRegistry(registry).acquire(this.abort.signal);
    } catch {
      releaseGlobal?.();
      return;
    }
    try {
      this.report({ phase: 'Pulling', startTime: kubeTime(), progress: 0 });
      await this.pullWithRetries(image, started);
    } finally {
      releaseRegistry();
      releaseGlobal();
    }
  }

  private async pullWithRetries(image: string, started: number): Promise<void> {
    const policy = this.tag.pullPolicy ?? {};
    const attempts = (policy.backoffLimit ?? 3) + 1;
    const timeoutMs = (policy.timeoutSeconds ?? 600) * 1000;
    const deadline = policy.activeDeadlineSeconds
      ? started + policy.activeDeadlineSeconds * 1000
      : Number.POSITIVE_INFINITY;
    const backoff = this.ctx.backoff ?? { initialMs: 1000, maxMs: 30_000 };
    if (this.tag.imagePullPolicy !== 'Always') {
      const id = await this.ctx.images.present(image).catch(() => undefined);
      if (id) {
        this.finish(image, started, true, '', id);
        return;
      }
    }
    let lastError = '';
    let delay = backoff.initialMs;
    for (let attempt = 1; attempt <= attempts && !this.abort.signal.aborted; attempt++) {
      const left = deadline - Date.now();
      if (left <= 0) {
        lastError = DEADLINE_MESSAGE;
        break;
      }
      try {
        const { imageRef } = await this.pullOnce(image, Math.min(timeoutMs, left));
        this.finish(image, started, true, '', imageRef);
        return;
      } catch (err) {
        if (this.abort.signal.aborted) return;
        lastError = Date.now() >= deadline ? DEADLINE_MESSAGE : (err as Error).message;
        this.ctx.log.warn({ image, attempt, err: lastError }, 'pull attempt failed');
        if (attempt < attempts) {
          this.report({ message: `attempt ${attempt} of ${attempts} failed: ${lastError}` });
          await this.sleep(delay);
          delay = Math.min(delay * 2, backoff.maxMs);
        }
      }
    }
    if (!this.abort.signal.aborted) this.finish(image, started, false, lastError, '');
  }

  /** One attempt: each matching credential in turn (no anonymous fallback when all fail), else anonymous. */
  private async pullOnce(image: string, timeoutMs: number): Promise<{ imageRef: string }> {
    const credentials = await this.ctx.credentials(image);
    const options = {
      timeoutMs,
      signal: this.abort.signal,
      sandbox: this.sandbox,
      onProgress: (p: { bytes: number; total: number; percent: number }) =>
        this.report({
          progress: p.percent,
          message: `pulled ${formatBytes(p.bytes)} of ${formatBytes(p.total)}`,
        }),
    };
    if (credentials.length === 0) return this.ctx.images.pull(image, options);
    let last: unknown;
    for (const credential of credentials) {
      try {
        return await this.ctx.images.pull(image, { ...options, credential });
      } catch (err) {
        last = err;
        if (this.abort.signal.aborted) throw err;
      }
    }
    throw last;
  }

  private finish(image: string, started: number, ok: boolean, message: string, imageRef: string): void {
    const seconds = (Date.now() - started) / 1000;
    if (ok) {
      this.report({
        phase: 'Succeeded',
        progress: 100,
        completionTime: kubeTime(),
        imageID: `${this.name}@${imageRef}`,
        message: undefined,
      });
    } else this.report({ phase: 'Failed', completionTime: kubeTime(), message });
    this.ctx.onFinished?.({ image: this.name, tag: this.tag.tag, ok, seconds, message });
    this.ctx.log.info({ image, ok, seconds }, ok ? 'image pulled' : 'image pull failed');
  }
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}
