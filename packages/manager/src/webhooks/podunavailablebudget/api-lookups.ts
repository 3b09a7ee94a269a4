import { KruiseResources, type PodUnavailableBudget } from '@kruise/api';
import type { KubeClient, KubeObject } from '@kruise/runtime';
import type { PubAdmissionLookups } from './lookups.ts';

/**
 * The PUB webhook's lookups, read from the API at each request (budgets are few and validated
 * rarely; upstream reads its informer cache, which may not yet hold one created a moment ago).
 */
export function apiPubLookups(client: KubeClient): PubAdmissionLookups {
  return {
    budgets: async (namespace) =>
      (
        await client.listAll<PodUnavailableBudget & KubeObject>(KruiseResources.PodUnavailableBudget, {
          namespace,
        })
      ).items,
  };
}
