import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The abort signal of the work in progress, carried through every `await` of that work: a
 * controller runs each reconcile inside `withRequestSignal(ctx.signal, …)`, and `KubeClient` ties
 * every request it sends to the signal it finds here. So a reconcile aborted at step-down cannot
 * send one more request, whichever client or helper it calls, and the requests it has in flight
 * are cancelled — without each reconciler having to pass its signal along by hand.
 */
const scope = new AsyncLocalStorage<AbortSignal>();

/** Runs `work` with `signal` as the signal of every API request it makes (nested scopes combine). */
export function withRequestSignal<T>(signal: AbortSignal, work: () => T): T {
  const outer = scope.getStore();
  return scope.run(outer ? AbortSignal.any([outer, signal]) : signal, work);
}

/** The signal of the work running now, if it runs inside `withRequestSignal`. */
export function currentRequestSignal(): AbortSignal | undefined {
  return scope.getStore();
}
