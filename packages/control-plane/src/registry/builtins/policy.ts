import type { StatusCause } from '../../errors.ts';
import { AGE_COLUMN, column } from '../columns.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { builtin } from './define.ts';
import { goValue, invalidAs, nonNegative, notSupported } from './field-errors.ts';
import { labelCauses } from './validation.ts';

const PERCENT = /^[0-9]+%$/;

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
function intOrPercentCauses(field: string, value: unknown): StatusCause[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'number') return nonNegative(field, value);
  const text = String(value);
  if (!PERCENT.test(text))
    return [
      invalidAs(
        field,
        goValue(text),
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ),
    ];
  if (Number(text.slice(0, -1)) > 100)
    return [invalidAs(field, goValue(text), 'must not be greater than 100%')];
  return [];
}

/** ValidatePodDisruptionBudget (policy/v1). */
function validatePdb(obj: KubeObject): StatusCause[] {
  const spec = obj.spec ?? {};
  const causes: StatusCause[] = [];
  if (spec.minAvailable != null && spec.maxUnavailable != null)
    causes.push(
      invalidAs(
        'spec',
        goValue(spec, 'policy.PodDisruptionBudgetSpec'),
        'minAvailable and maxUnavailable cannot be both set',
      ),
    );
  causes.push(...intOrPercentCauses('spec.minAvailable', spec.minAvailable));
  causes.push(...intOrPercentCauses('spec.maxUnavailable', spec.maxUnavailable));
  causes.push(...labelCauses(spec.selector?.matchLabels, 'spec.selector.matchLabels'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy != null && policy !== 'IfHealthyBudget' && policy !== 'AlwaysAllow')
    causes.push(notSupported('spec.unhealthyPodEvictionPolicy', policy, ['AlwaysAllow', 'IfHealthyBudget']));
  for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'])
    causes.push(...nonNegative(`status.${f}`, obj.status?.[f]));
  return causes;
}

const orNA = (v: unknown) => (v === undefined || v === null ? 'N/A' : String(v));

/** `policy/v1` PodDisruptionBudget (its status is kept by the disruption controller). */
export const POLICY_RESOURCES: ResourceType[] = [
  builtin({
    group: 'policy',
    version: 'v1',
    kind: 'PodDisruptionBudget',
    plural: 'poddisruptionbudgets',
    namespaced: true,
    shortNames: ['pdb'],
    statusSubresource: true,
    tracksGeneration: true,
    columns: [
      column('Min Available', (o) => orNA(o.spec?.minAvailable)),
      column('Max Unavailable', (o) => orNA(o.spec?.maxUnavailable)),
      column('Allowed Disruptions', (o) => o.status?.disruptionsAllowed ?? 0, 'integer'),
      AGE_COLUMN,
    ],
    defaults: (o) => {
      o.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    },
    validate: validatePdb,
  }),
];
