import { Informer, type KubeClient, type KubeObject, Resources } from '@kruise/runtime';

/** Whether a pod counts as available: Ready and not being deleted. */
export const podAvailable = (p: KubeObject): boolean =>
  !p.metadata?.deletionTimestamp &&
  (p.status?.conditions ?? []).some(
    (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
  );

/** The most pods of a workload that were unavailable at once since the last reset, as a watch saw them. */
export interface AvailabilityWatch {
  /** The most unavailable (expected − available) after any one change since the last reset. */
  readonly most: number;
  /** Starts a new window (its count starts from now). */
  reset(): void;
  stop(): Promise<void>;
}

/**
 * Watches the pods `labelSelector` picks in `namespace` and, after every change the API server
 * reports (every pod event, in order, none sampled away), counts how many of `expected` are not
 * available: not Ready, terminating, or missing.
 */
export async function watchAvailability(
  client: KubeClient,
  namespace: string,
  labelSelector: string,
  expected: number,
): Promise<AvailabilityWatch> {
  const informer = new Informer<KubeObject>(client, { resource: Resources.Pod, namespace, labelSelector });
  let most = 0;
  const count = () => {
    const up = informer.list().filter(podAvailable).length;
    most = Math.max(most, expected - up);
  };
  informer.addEventHandler({ add: count, update: count, delete: count });
  informer.start();
  await informer.waitForSync();
  most = 0;
  count();
  return {
    get most() {
      return most;
    },
    reset() {
      most = 0;
      count();
    },
    stop: () => informer.stop(),
  };
}
