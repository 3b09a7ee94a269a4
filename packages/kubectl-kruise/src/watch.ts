import { streamWatch } from '@kruise/runtime/informer/watch-stream';
import type { KubeObject } from '@kruise/runtime/kube/client';
import { GoneError } from '@kruise/runtime/kube/errors';
import { collectionPath } from '@kruise/runtime/kube/resources';
import type { CommandContext } from './command.ts';
import type { Target } from './targets.ts';

/** kubectl's words when `--timeout` passes. */
export const TIMED_OUT = 'timed out waiting for the condition';

/**
 * Reads one object, then follows it with a watch (re-reading after a dropped watch or a 410),
 * calling `onObject` with every version until it returns true. Rejects when the object is
 * deleted ("object has been deleted"), after `timeoutMs` (0 = never) or on SIGINT.
 */
export async function followObject(
  ctx: CommandContext,
  target: Target,
  onObject: (obj: KubeObject) => boolean,
  timeoutMs = 0,
): Promise<void> {
  const { kind, namespace, name } = target;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  ctx.signal.addEventListener('abort', onAbort);
  const timer = timeoutMs > 0 ? setTimeout(() => stop.abort(new Error(TIMED_OUT)), timeoutMs) : undefined;
  try {
    for (;;) {
      const obj = await ctx.client().get(kind.resource, namespace, name);
      if (onObject(obj)) return;
      let done = false;
      let failure: Error | undefined;
      const watch = new AbortController();
      const forward = () => watch.abort();
      stop.signal.addEventListener('abort', forward);
      try {
        await streamWatch(
          ctx.client(),
          collectionPath(kind.resource, namespace),
          {
            fieldSelector: `metadata.name=${name}`,
            resourceVersion: obj.metadata?.resourceVersion,
            allowWatchBookmarks: true,
          },
          (event) => {
            if (done || failure) return;
            if (event.type === 'DELETED') failure = new Error('object has been deleted');
            else if (event.type === 'ADDED' || event.type === 'MODIFIED') done = onObject(event.object);
            else if (event.type === 'ERROR') watch.abort();
            if (done || failure) watch.abort();
          },
          watch.signal,
        );
      } catch (err) {
        if (!(err instanceof GoneError) && !watch.signal.aborted) throw err;
      } finally {
        stop.signal.removeEventListener('abort', forward);
      }
      if (failure) throw failure;
      if (done) return;
      if (stop.signal.aborted) throw (stop.signal.reason as Error) ?? new Error('interrupted');
    }
  } finally {
    if (timer) clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
  }
}
