import type { PodUnavailableBudget } from '@kruise/api';

/** What the PUB webhook reads besides the request: the other budgets of the namespace (from the API, so one created a moment ago is seen). */
export interface PubAdmissionLookups {
  /** Every PodUnavailableBudget of `namespace`; rejects with the API's words when they cannot be listed. */
  budgets(namespace: string): Promise<PodUnavailableBudget[]>;
}

/** Lookups for generating configurations, where no request is ever served (every list rejects). */
export const NO_PUB_LOOKUPS: PubAdmissionLookups = {
  budgets: () => Promise.reject(new Error('no API access')),
};
