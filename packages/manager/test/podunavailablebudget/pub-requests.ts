import type { PodUnavailableBudget } from '@kruise/api';
import type { AdmissionRequest } from '@kruise/runtime';
import type { PubAdmissionLookups } from '../../src/webhooks/podunavailablebudget/validating.ts';

/** What the PodUnavailableBudget webhook tests share: requests, budgets, fixed lookups. */

export type Obj = Record<string, any>;

/** An admission request for a policy.kruise.io/v1alpha1 PodUnavailableBudget in namespace `default`. */
export const pubRequest = (
  operation: AdmissionRequest['operation'],
  object: unknown,
  oldObject?: unknown,
): AdmissionRequest => ({
  uid: 'u',
  kind: { group: 'policy.kruise.io', version: 'v1alpha1', kind: 'PodUnavailableBudget' },
  resource: { group: 'policy.kruise.io', version: 'v1alpha1', resource: 'podunavailablebudgets' },
  namespace: 'default',
  operation,
  object,
  oldObject,
});

/** A budget `name` in `default` with `spec` (a selector on app=web and maxUnavailable 1 unless given). */
export const budget = (
  name: string,
  spec: Obj = { selector: { matchLabels: { app: 'web' } }, maxUnavailable: 1 },
  meta: Obj = {},
): Obj => ({
  apiVersion: 'policy.kruise.io/v1alpha1',
  kind: 'PodUnavailableBudget',
  metadata: { name, namespace: 'default', ...meta },
  spec,
});

/** Lookups answering `others` (or rejecting with `fail`), recording the namespaces asked for. */
export function fixedBudgets(others: Obj[], fail?: string): PubAdmissionLookups & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    budgets: async (namespace) => {
      asked.push(namespace);
      if (fail) throw new Error(fail);
      return others as PodUnavailableBudget[];
    },
  };
}
