import type { ResourcesPolicy, SidecarContainer, SidecarSet } from '@kruise/api';
import type { Quantity } from '@kruise/kube-compat';
import type { Container, Pod, ResourceRequirements } from 'kubernetes-types/core/v1.js';
import { type ExprValue, evaluateExpression } from '../../../workload/sidecarset/expression.ts';
import { isNativeSidecar } from '../../../workload/sidecarset/native.ts';
import {
  addQuantity,
  cmpQuantity,
  goInt64,
  milliQuantity,
  quantityString,
  resourceQuantity,
  wholeQuantity,
  ZERO_QUANTITY,
} from '../../../workload/sidecarset/quantity-math.ts';

type Resource = 'cpu' | 'memory';
type Totals = Partial<Record<Resource, Quantity>>;

/**
 * The pod's app containers a policy sizes a sidecar after (upstream's getTargetContainers): its
 * native-sidecar init containers, then its containers, whose name matches the regex, leaving out
 * every container of the SidecarSets being injected.
 */
function targetContainers(pod: Pod, nameRegex: string, injecting: SidecarSet[]): Container[] {
  let pattern: RegExp;
  try {
    pattern = new RegExp(nameRegex);
  } catch (err) {
    throw new Error(
      `failed to get target containers: invalid regex pattern ${JSON.stringify(nameRegex)}: error parsing regexp: ${(err as Error).message}`,
    );
  }
  const kruise = new Set(
    injecting.flatMap((s) =>
      [...(s.spec?.initContainers ?? []), ...(s.spec?.containers ?? [])].map((c) => c.name),
    ),
  );
  const app = (c: Container) => !kruise.has(c.name) && pattern.test(c.name);
  return [
    ...(pod.spec?.initContainers ?? []).filter((c) => isNativeSidecar(c) && app(c)),
    ...(pod.spec?.containers ?? []).filter(app),
  ];
}

/**
 * Limits and requests over the target containers: `sum` adds them, `max` takes the largest. A
 * limit is set only when every target container has one (else unlimited); missing requests count 0.
 */
function aggregate(containers: Container[], mode: string | undefined): { limits: Totals; requests: Totals } {
  const limits: Totals = {};
  const requests: Totals = {};
  if (mode !== 'sum' && mode !== 'max') return { limits, requests };
  const combine = (a: Quantity | undefined, b: Quantity) =>
    mode === 'sum' ? addQuantity(a ?? ZERO_QUANTITY, b) : !a || cmpQuantity(b, a) > 0 ? b : a;
  for (const r of ['cpu', 'memory'] as const) {
    let unlimited = false;
    for (const c of containers) {
      const limit = resourceQuantity(c.resources?.limits?.[r]);
      if (limit) limits[r] = combine(limits[r], limit);
      else unlimited = true;
      const request = resourceQuantity(c.resources?.requests?.[r]);
      if (request) requests[r] = combine(requests[r], request);
    }
    if (unlimited) delete limits[r];
    if (mode === 'sum' && requests[r]?.mantissa === 0n) delete requests[r];
  }
  return { limits, requests };
}

/** One expression over the aggregated value (upstream's evaluateResourceExpression). */
function evaluate(expr: string, aggregated: Quantity): Quantity {
  const variable = /\bmemory\b/.test(expr) ? 'memory' : 'cpu';
  let result: ExprValue;
  try {
    result = evaluateExpression(expr, { [variable]: { quantity: aggregated } });
  } catch (err) {
    throw new Error(`failed to parse expression ${JSON.stringify(expr)}: ${(err as Error).message}`);
  }
  if (result.quantity) return result.quantity;
  return variable === 'cpu'
    ? milliQuantity(goInt64(result.number * 1000))
    : wholeQuantity(goInt64(result.number));
}

/**
 * The sidecar's resources under its `resourcesPolicy` (upstream's applyResourcesPolicy): the
 * expressions of `resourcesExpr` evaluated over the sum or max of the matched app containers'
 * resources; a limit stays unset where the app containers are unlimited.
 * @throws Error in upstream's words when no container matches or an expression fails.
 */
export function resourcesFromPolicy(
  pod: Pod,
  policy: ResourcesPolicy,
  injecting: SidecarSet[],
): ResourceRequirements {
  const regex = policy.targetContainersNameRegex ?? '';
  const targets = targetContainers(pod, regex, injecting);
  if (targets.length === 0) throw new Error(`no containers match the regex pattern ${JSON.stringify(regex)}`);
  const { limits, requests } = aggregate(targets, policy.targetContainersMode);
  const resources: ResourceRequirements = {};
  const out = (kind: 'limits' | 'requests', totals: Totals, label: string) => {
    const exprs = policy.resourcesExpr?.[kind];
    if (!exprs) return;
    const list: Record<string, string> = {};
    for (const r of ['cpu', 'memory'] as const) {
      const expr = exprs[r];
      if (!expr) continue;
      if (kind === 'limits' && !totals[r]) continue;
      try {
        list[r] = quantityString(evaluate(expr, totals[r] ?? ZERO_QUANTITY));
      } catch (err) {
        throw new Error(
          `failed to evaluate ${r === 'cpu' ? 'CPU' : 'memory'} ${label} expression: ${(err as Error).message}`,
        );
      }
    }
    if (Object.keys(list).length > 0) resources[kind] = list;
  };
  out('limits', limits, 'limits');
  out('requests', requests, 'requests');
  return resources;
}

/** The sidecar with its resources set by its policy (a copy); without a policy, the sidecar itself. */
export function applyResourcesPolicy(
  pod: Pod,
  sidecar: SidecarContainer,
  injecting: SidecarSet[],
): SidecarContainer {
  if (!sidecar.resourcesPolicy) return sidecar;
  return { ...sidecar, resources: resourcesFromPolicy(pod, sidecar.resourcesPolicy, injecting) };
}
