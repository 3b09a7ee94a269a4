import { kubeletContainerHash } from '@kruise/kube-compat';
import { type KubeObject, type Manager, Resources, unlessNotFound } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Counter } from 'prom-client';
import { trimmedPods } from '../../informers.ts';
import type { ManagerOptions } from '../../options.ts';
import { cachedFinderSources, newControllerFinder } from '../../workload/controllerfinder/index.ts';
import { managerBudgets } from '../../workload/pub/manager-budgets.ts';
import type { WebhookLookups } from '../paths.ts';

/** The event a refused disruption records on the pod (upstream's reason and words). */
const REFUSAL_REASON = 'PubPreventPodDeletion';
const REFUSAL_MESSAGE = 'openkruise pub prevents pod deletion';

/**
 * The pod webhooks' PodUnavailableBudget reads from the manager: the shared budgets (cache and
 * writes), pods (cache, else the API), the controller finder for a new pod's workload, the
 * PubPreventPodDeletion event and upstream's `pod_unavailable_budget{kind_namespace_name,username}`
 * counter of refusals. Nothing when both PodUnavailableBudget gates are off.
 */
export function pubWebhookLookups(
  manager: Manager,
  flags: ManagerOptions,
): Pick<WebhookLookups, 'podValidation' | 'relatedPub'> {
  const gates = flags.featureGates;
  if (!gates.enabled('PodUnavailableBudgetDeleteGate') && !gates.enabled('PodUnavailableBudgetUpdateGate'))
    return {};
  const budgets = managerBudgets(manager);
  const pods = trimmedPods(manager);
  const finder = newControllerFinder(cachedFinderSources(manager, flags.webhookServiceNamespace));
  const recorder = manager.eventRecorder('pub-controller');
  const refusals = new Counter({
    name: 'pod_unavailable_budget',
    help: 'Pod Unavailable Budget Metrics',
    labelNames: ['kind_namespace_name', 'username'],
    registers: [manager.metrics.registry],
  });
  return {
    podValidation: {
      keeper: budgets.keeper,
      kubeletHash: kubeletContainerHash,
      inPlacePodVerticalScaling: gates.enabled('InPlacePodVerticalScaling'),
      now: () => new Date(),
      pod: async (namespace, name) => {
        const cached = pods.get(`${namespace}/${name}`);
        return cached ?? unlessNotFound(manager.client.get<Pod & KubeObject>(Resources.Pod, namespace, name));
      },
      onRefusal: (pod, _pub, username) => {
        const owner = (pod.metadata?.ownerReferences ?? []).find((r) => r.controller);
        const namespace = pod.metadata?.namespace || 'default';
        refusals.inc({
          kind_namespace_name: `${owner?.kind ?? 'unknown'}_${namespace}_${owner?.name ?? pod.metadata?.name}`,
          username,
        });
        recorder.event(
          { apiVersion: 'v1', kind: 'Pod', ...pod } as KubeObject,
          'Warning',
          REFUSAL_REASON,
          REFUSAL_MESSAGE,
        );
      },
    },
    relatedPub: {
      budgets: (namespace) => budgets.inNamespace(namespace),
      workloadOf: async (pod) => {
        const ref = (pod.metadata?.ownerReferences ?? []).find((r) => r.controller);
        if (!ref) return undefined;
        const found = await finder.scaleAndSelectorForRef(
          { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid },
          pod.metadata?.namespace ?? '',
        );
        return found ? { apiVersion: found.apiVersion, kind: found.kind, name: found.name } : undefined;
      },
    },
  };
}
