import { randomBytes } from 'node:crypto';
import { kubeTime } from '@kruise/kube-compat/time';
import type { KubeClient, KubeObject } from '../kube/client.ts';
import { isNotFound } from '../kube/errors.ts';
import { Resources } from '../kube/resources.ts';
import { type Logger, silentLogger } from '../log/logger.ts';

/** `Normal` or `Warning`. */
export type EventType = 'Normal' | 'Warning';

const AGGREGATE_WINDOW_MS = 10 * 60_000;
const BURST = 25;
const REFILL_MS = 5 * 60_000;

/**
 * Records core/v1 Events on objects, as client-go's recorder does: a repeat of the same event
 * within ten minutes bumps `count` and `lastTimestamp` instead of creating another Event, and each
 * object gets a burst of 25 events then one per five minutes. Failures are logged, never thrown.
 */
export class EventRecorder {
  private readonly client: KubeClient;
  private readonly component: string;
  private readonly host: string;
  private readonly log: Logger;
  private readonly seen = new Map<string, { namespace: string; name: string; count: number; at: number }>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private pending = Promise.resolve();

  constructor(client: KubeClient, component: string, options: { host?: string; logger?: Logger } = {}) {
    this.client = client;
    this.component = component;
    this.host = options.host ?? '';
    this.log = (options.logger ?? silentLogger).child({ recorder: component });
  }

  /** Records an event on `obj`; returns at once (writes happen in order in the background). */
  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const meta = obj.metadata ?? {};
    const objectKey = `${obj.kind}/${meta.namespace ?? ''}/${meta.name}/${meta.uid ?? ''}`;
    if (!this.allow(objectKey)) return;
    this.pending = this.pending
      .then(() => this.write(obj, type, reason, message))
      .catch((err) => {
        this.log.warn({ reason, err: (err as Error).message }, 'could not record an event');
      });
  }

  /** Resolves once queued events are written (tests, shutdown). */
  flush(): Promise<void> {
    return this.pending;
  }

  private allow(objectKey: string): boolean {
    const now = Date.now();
    const b = this.buckets.get(objectKey) ?? { tokens: BURST, at: now };
    b.tokens = Math.min(BURST, b.tokens + (now - b.at) / REFILL_MS);
    b.at = now;
    this.buckets.set(objectKey, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  private async write(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const meta = obj.metadata ?? {};
    const namespace = meta.namespace || 'default';
    const key = JSON.stringify([meta.uid, obj.kind, meta.namespace, meta.name, type, reason, message]);
    const prior = this.seen.get(key);
    const now = Date.now();
    if (prior && now - prior.at < AGGREGATE_WINDOW_MS) {
      try {
        prior.count++;
        prior.at = now;
        await this.client.mergePatch(Resources.Event, prior.namespace, prior.name, {
          count: prior.count,
          lastTimestamp: kubeTime(),
        });
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const name = `${meta.name}.${Date.now().toString(16)}${randomBytes(2).toString('hex')}`;
    const time = kubeTime();
    await this.client.create(Resources.Event, {
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        resourceVersion: meta.resourceVersion,
      },
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: time,
      lastTimestamp: time,
      source: { component: this.component, ...(this.host ? { host: this.host } : {}) },
      reportingComponent: this.component,
      reportingInstance: this.host,
    });
    this.seen.set(key, { namespace, name, count: 1, at: now });
    if (this.seen.size > 4096) {
      for (const [k, v] of this.seen) if (now - v.at > AGGREGATE_WINDOW_MS) this.seen.delete(k);
    }
  }
}
