import type { NodeImageStatus } from '@kruise/api';
import { KruiseResources } from '@kruise/api/kinds';
import type { KubeClient } from '@kruise/runtime/kube/client';
import { isNotFound } from '@kruise/runtime/kube/errors';
import type { Logger } from '@kruise/runtime/log/logger';

/**
 * Writes a NodeImage's status at most once per `intervalMs`, and never when it did not change:
 * progress updates of many tags collapse into one merge patch of `/status`.
 */
export class StatusWriter {
  private readonly client: KubeClient;
  private readonly node: string;
  private readonly intervalMs: number;
  private readonly log: Logger;
  private readonly build: () => NodeImageStatus;
  private lastWritten = '';
  private lastAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Status writes sent so far. */
  writes = 0;

  constructor(
    client: KubeClient,
    node: string,
    intervalMs: number,
    build: () => NodeImageStatus,
    log: Logger,
  ) {
    this.client = client;
    this.node = node;
    this.intervalMs = intervalMs;
    this.build = build;
    this.log = log;
  }

  /** Something changed: write soon (throttled). */
  poke(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastAt + this.intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writing = this.writing.then(() => this.flush());
    }, wait);
  }

  /** Writes now if the status differs from the last write. */
  async flush(): Promise<void> {
    const status = this.build();
    const text = JSON.stringify(status);
    if (text === this.lastWritten) return;
    this.lastAt = Date.now();
    try {
      await this.client.mergePatchStatus(KruiseResources.NodeImage, undefined, this.node, {
        status: { ...status, imageStatuses: status.imageStatuses ?? null },
      });
      this.lastWritten = text;
      this.writes++;
    } catch (err) {
      if (!isNotFound(err)) {
        this.log.warn({ err: (err as Error).message }, 'writing NodeImage status failed, will retry');
        setTimeout(() => this.poke(), this.intervalMs).unref();
      }
    }
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    await this.flush();
  }
}
