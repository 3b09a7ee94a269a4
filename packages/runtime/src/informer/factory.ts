import type { KubeClient, KubeObject } from '../kube/client.ts';
import { resourceId } from '../kube/resources.ts';
import type { Logger } from '../log/logger.ts';
import { Informer, type InformerOptions } from './informer.ts';

/** One informer per resource and selector, shared by every controller that asks for it. */
export class InformerFactory {
  private readonly informers = new Map<string, Informer<any>>();
  private readonly client: KubeClient;
  private readonly defaults: Partial<InformerOptions>;
  private started = false;

  constructor(client: KubeClient, defaults: Partial<InformerOptions> & { logger?: Logger } = {}) {
    this.client = client;
    this.defaults = defaults;
  }

  /** The shared informer for these options (created on first use). */
  informerFor<T extends KubeObject>(options: InformerOptions): Informer<T> {
    const key = [
      resourceId(options.resource),
      options.namespace ?? '',
      options.labelSelector ?? '',
      options.fieldSelector ?? '',
    ].join('|');
    let informer = this.informers.get(key);
    if (!informer) {
      informer = new Informer<T>(this.client, { ...this.defaults, ...options });
      this.informers.set(key, informer);
      if (this.started) informer.start();
    }
    return informer as Informer<T>;
  }

  /** Starts every informer (and those created later). */
  start(): void {
    this.started = true;
    for (const i of this.informers.values()) i.start();
  }

  /** Resolves once every informer has listed. */
  async waitForCacheSync(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync()));
  }

  /** Whether every informer has listed. */
  hasSynced(): boolean {
    return [...this.informers.values()].every((i) => i.hasSynced());
  }

  /** Stops every informer. */
  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }

  /** Number of distinct informers. */
  get size(): number {
    return this.informers.size;
  }
}
