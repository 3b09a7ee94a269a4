import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { ScaleExpectations } from '../expectations/scale.ts';
import type { Informer } from '../informer/informer.ts';
import type { KubeObject } from '../kube/client.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { RateLimiter } from '../queue/rate-limiter.ts';
import { Controller, type RequestReconciler } from './controller.ts';
import { type Request, requestFor, requestKey, requestOfKey } from './request.ts';

/** What an event maps to: nothing, one request, or several. */
export type Requests = Request | Iterable<Request> | undefined | null | false;

/** Maps an informer's events to requests; an event without a mapping enqueues nothing. */
export interface EventMapper<T> {
  add?(obj: T): Requests;
  update?(oldObj: T, newObj: T): Requests;
  delete?(obj: T): Requests;
}

/** The request for the controlling owner of `obj` when it is of `kind` (same namespace). */
export function controllerOwnerRequest(
  obj: { metadata?: { namespace?: string; ownerReferences?: OwnerReference[] } },
  kind: string,
): Request | undefined {
  const ref = (obj.metadata?.ownerReferences ?? []).find((r) => r.controller && r.kind === kind);
  return ref?.name ? { namespace: obj.metadata?.namespace ?? '', name: ref.name } : undefined;
}

/** What a controller is declared with: its name, its reconciler and how many run at once. */
export interface NewControllerOptions {
  name: string;
  reconcile: RequestReconciler;
  /** Concurrent reconciles (upstream's `--<kind>-workers`; default 1). */
  workers?: number;
  rateLimiter?: RateLimiter<string>;
}

/** Options of `watches`. */
export interface WatchOptions {
  /** Queue each request this long after its event (client-go's `AddAfter`), collapsing a burst. */
  delayMs?: number;
}

/**
 * A controller on the contract (ADR 0028), outside a manager: `Manager.newController` builds its
 * controllers with this, and a program without a manager (kruise-daemon) declares its own here and
 * starts and stops `builder.controller` itself.
 */
export function newController(
  options: NewControllerOptions,
  deps: { logger?: Logger; metrics?: Metrics } = {},
): ControllerBuilder {
  const controller = new Controller({
    name: options.name,
    workers: options.workers,
    logger: deps.logger,
    metrics: deps.metrics,
    rateLimiter: options.rateLimiter,
    reconcile: (ctx, key) => options.reconcile(ctx, requestOfKey(key)),
  });
  return new ControllerBuilder(controller);
}

/** Options of `owns`. */
export interface OwnsOptions {
  /** Creations and deletions the owner expects, observed here from add and delete events (by object name). */
  expectations?: ScaleExpectations;
}

/**
 * What a controller watches, declared in its `add(manager, options)`: the kind it reconciles, the
 * kinds it owns (events map to the controlling owner), and any other kind with an explicit mapping.
 * Handlers only map events to requests and enqueue them; the reconciler reads the caches.
 */
export class ControllerBuilder {
  readonly controller: Controller;

  constructor(controller: Controller) {
    this.controller = controller;
  }

  /** The controller's name (metrics, logs). */
  get name(): string {
    return this.controller.name;
  }

  /** Queues a request (after `delayMs` when given). */
  enqueue(req: Request, delayMs = 0): void {
    if (delayMs > 0) this.controller.queue.addAfter(requestKey(req), delayMs);
    else this.controller.enqueue(requestKey(req));
  }

  private enqueueAll(requests: Requests, delayMs: number): void {
    if (!requests) return;
    if (Symbol.iterator in requests) for (const r of requests) this.enqueue(r, delayMs);
    else this.enqueue(requests, delayMs);
  }

  /** The kind this controller reconciles: every add, update and delete queues the object itself. */
  reconciles<T extends KubeObject>(informer: Informer<T>): this {
    return this.watches(informer, (obj) => requestFor(obj));
  }

  /**
   * A kind this controller creates: an event queues the controlling owner of `ownerKind` (both
   * owners when an update moved the object), and observes the owner's expected creations/deletions.
   */
  owns<T extends KubeObject>(informer: Informer<T>, ownerKind: string, options: OwnsOptions = {}): this {
    const owner = (obj: T) => controllerOwnerRequest(obj, ownerKind);
    const { expectations } = options;
    return this.watches(informer, {
      add: (obj) => {
        const o = owner(obj);
        if (o) expectations?.creationObserved(requestKey(o), obj.metadata?.name);
        return o;
      },
      update: (oldObj, newObj) => {
        const o = owner(oldObj);
        const n = owner(newObj);
        return o && n && requestKey(o) !== requestKey(n) ? [o, n] : (n ?? o);
      },
      delete: (obj) => {
        const o = owner(obj);
        if (o) expectations?.deletionObserved(requestKey(o), obj.metadata?.name);
        return o;
      },
    });
  }

  /** Any kind, with its own mapping (a function applies to every event, given the newest object). */
  watches<T extends KubeObject>(
    informer: Informer<T>,
    map: EventMapper<NoInfer<T>> | ((obj: NoInfer<T>) => Requests),
    options: WatchOptions = {},
  ): this {
    const m: EventMapper<T> =
      typeof map === 'function' ? { add: map, update: (_o, n) => map(n), delete: map } : map;
    const delay = options.delayMs ?? 0;
    informer.addEventHandler({
      ...(m.add ? { add: (obj: T) => this.enqueueAll(m.add!(obj), delay) } : {}),
      ...(m.update ? { update: (o: T, n: T) => this.enqueueAll(m.update!(o, n), delay) } : {}),
      ...(m.delete ? { delete: (obj: T) => this.enqueueAll(m.delete!(obj), delay) } : {}),
    });
    return this;
  }
}
