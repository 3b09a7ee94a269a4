import type { Controller, KubeObject } from '@kruise/runtime';
import { eventually } from './poll.ts';

/**
 * Markers for absence checks on an in-process controller ("it saw this and did nothing"): first
 * its caches hold the state, then a whole reconcile that started after that has finished.
 */

/** A cache to look at: an informer, and how to read the objects it should hold from the API. */
export interface CacheCheck {
  informer: {
    get(key: string): { metadata?: { resourceVersion?: string } } | undefined;
    describe(): { kind: string };
  };
  read: () => Promise<KubeObject[]>;
}

const keyOf = (o: KubeObject) =>
  o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : `${o.metadata?.name}`;
const versions = (objects: KubeObject[]) =>
  objects.map((o) => `${keyOf(o)}@${o.metadata?.resourceVersion}`).join();

/** Whether each informer holds what its `read` returns (read now) at the resourceVersions read. */
async function holds(checks: CacheCheck[]): Promise<boolean> {
  for (const { informer, read } of checks)
    for (const o of await read())
      if (informer.get(keyOf(o))?.metadata?.resourceVersion !== o.metadata?.resourceVersion) return false;
  return true;
}

/** Resolves once every informer holds the objects its `read` returns, as the API has them. */
export function cached(...checks: CacheCheck[]): Promise<true> {
  return eventually(async () => (await holds(checks)) || undefined, {
    what: `the caches to hold what the API has (${checks.map((c) => c.informer.describe().kind).join(', ')})`,
  });
}

/** Resolves once `controller` has nothing queued and nothing being reconciled (delayed requeues aside). */
export function idle(controller: Controller): Promise<true> {
  return eventually(
    // longestRunningSeconds is 0 only while no key is being reconciled
    () => (controller.queue.len() === 0 && controller.queue.longestRunningSeconds() === 0) || undefined,
    { what: `${controller.name} to go idle` },
  );
}

/**
 * Resolves once a whole reconcile of `key` that saw the caches holding what the API has now has
 * finished: the caches catch up, `key` is queued, then the controller goes idle (a key queued while
 * it is being reconciled runs again afterwards). What that reconcile did — or chose not to do — is
 * in the API by then.
 */
export async function reconciledOn(
  controller: Controller,
  key: string,
  ...checks: CacheCheck[]
): Promise<void> {
  await cached(...checks);
  controller.enqueue(key);
  await idle(controller);
}

/**
 * Resolves once `controller` is at rest on what the checks read: its caches hold it as the API has
 * it, it has nothing queued or running, and the API still has it so — nothing it wrote meanwhile is
 * still on its way back through a watch to queue it again.
 */
export function atRest(controller: Controller, ...checks: CacheCheck[]): Promise<true> {
  const read = async () => versions((await Promise.all(checks.map((c) => c.read()))).flat());
  return eventually(
    async () => {
      const before = await read();
      await cached(...checks);
      await idle(controller);
      return before === (await read()) || undefined;
    },
    { what: `${controller.name} to come to rest` },
  );
}
