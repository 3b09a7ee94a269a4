import { Informer, type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { pool } from './pool.ts';

/** Pods of one label in `default`, followed by a watch. */
export interface PodWatch {
  start(): Promise<void>;
  /** Resolves once `n` pods exist that are not being deleted. */
  reach(n: number): Promise<void>;
  /** Resolves once `n` pods that are not being deleted are bound to a node. */
  bound(n: number): Promise<void>;
  /** Resolves once no pod is left at all. */
  gone(): Promise<void>;
  stop(): Promise<void>;
}

const live = (p: KubeObject) => !p.metadata?.deletionTimestamp;

/**
 * Pods of one label, followed by a watch (no polling of the server being measured): each wait
 * resolves as soon as an event shows what it waits for, or fails after `timeoutMs`.
 */
export function podWatch(client: KubeClient, labelSelector: string, timeoutMs = 300_000): PodWatch {
  const informer = new Informer(client, { resource: Resources.Pod, namespace: 'default', labelSelector });
  let waiter: (() => void) | undefined;
  const wake = () => waiter?.();
  informer.addEventHandler({ add: wake, update: wake, delete: wake });
  const until = (done: () => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${labelSelector}: ${what} not reached in ${timeoutMs} ms`)),
        timeoutMs,
      );
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        waiter = undefined;
        resolve();
      };
      waiter = check;
      check();
    });
  const count = (also: (p: KubeObject) => boolean = () => true) =>
    informer.list().filter((p) => live(p) && also(p)).length;
  return {
    start: async () => {
      informer.start();
      await informer.waitForSync();
    },
    reach: (n) => until(() => count() === n, `${n} pods`),
    bound: (n) => until(() => count((p) => Boolean(p.spec?.nodeName)) === n, `${n} pods bound`),
    gone: () => until(() => informer.list().length === 0, 'no pods'),
    stop: async () => informer.stop(),
  };
}

/**
 * Deletes every pod matching the selector at once (grace 0: no kubelet runs them to confirm a
 * graceful deletion) and waits until the watch shows none.
 */
export async function deletePods(client: KubeClient, labelSelector: string, watch: PodWatch): Promise<void> {
  const pods = (await client.listAll(Resources.Pod, { namespace: 'default', labelSelector })).items;
  await pool(pods, 32, (p) =>
    client
      .delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 0 })
      .catch(() => undefined),
  );
  await watch.gone();
}
