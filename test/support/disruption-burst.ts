import { type KubeClient, Resources } from '@kruise/runtime';

/** What a burst of disruptions was answered: the messages of the refused ones, by kind. */
export interface BurstAnswers {
  admitted: number;
  /** Refused by the budget `pub`, in upstream's words (`vpod.kb.io` or `vpodeviction.kb.io`). */
  byBudget: number;
  /** Refused otherwise: pods that went meanwhile answer `pods "<name>" not found`, which is left out. */
  other: string[];
}

/**
 * Fires `count` disruptions at once at `pods` (cycling), alternately an eviction and a DELETE (1 s
 * grace), spread over `clients`, and sorts the answers.
 */
export async function disruptAtOnce(
  clients: KubeClient[],
  namespace: string,
  pods: string[],
  count: number,
  pub: string,
): Promise<BurstAnswers> {
  const answers = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => {
      const who = clients[i % clients.length]!;
      const pod = pods[i % pods.length]!;
      return i % 2
        ? who.delete(Resources.Pod, namespace, pod, { gracePeriodSeconds: 1 })
        : who.request('POST', `/api/v1/namespaces/${namespace}/pods/${pod}/eviction`, {
            body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace } },
          });
    }),
  );
  const refusal = (hook: string) =>
    `admission webhook "${hook}" denied the request: podunavailablebudget.policy.kruise.io "${pub}" is forbidden: pub unavailable allowed is negative`;
  const messages = answers
    .filter((a): a is PromiseRejectedResult => a.status === 'rejected')
    .map((a) => String(a.reason?.message));
  const byBudget = messages.filter((m) => m === refusal('vpod.kb.io') || m === refusal('vpodeviction.kb.io'));
  return {
    admitted: answers.length - messages.length,
    byBudget: byBudget.length,
    other: messages.filter((m) => !byBudget.includes(m) && !/^pods "[\w.-]+" not found$/.test(m)),
  };
}
