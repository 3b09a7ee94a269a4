import type { RollingUpdateStatefulSetStrategy, StatefulSet, StatefulSetSpec } from '@kruise/api';
import {
  deprecatedIntPercentValue,
  goAtoi,
  type IntOrString,
  labelSelectorMatches,
} from '@kruise/kube-compat';
import { INPLACE_UPDATE_READY } from '../../workload/inplaceupdate/readiness.ts';
import {
  type FieldError,
  forbidden,
  goIntOrString,
  goLabelSelector,
  goStringMap,
  invalid,
  nonNegative,
  notSupported,
  required,
} from '../field-errors.ts';
import { positiveIntOrPercentErrors } from '../int-or-percent.ts';
import { nameIsDnsLabel, objectMetaErrors } from '../object-meta-validation.ts';
import { podTemplateMetadataErrors } from '../pod-template-validation.ts';
import { labelSelectorError, labelSelectorFieldErrors, priorityStrategyError } from '../validation.ts';
import { goReadinessGates, goReserveOrdinals, goRollingUpdate, goUpdateStrategy } from './go-values.ts';

/**
 * Advanced StatefulSet's validation of an object (upstream's validateStatefulSet), with upstream's
 * field paths and words: the metadata (a DNS-label name), then the spec.
 */

/** The longest minReadySeconds of a rolling update. */
export const MAX_MIN_READY_SECONDS = 300;

const RESERVE_RANGE = /^\d+-\d+$/;

function podManagementPolicyErrors(spec: StatefulSetSpec): FieldError[] {
  const policy = spec.podManagementPolicy ?? '';
  if (!policy) return [required('spec.podManagementPolicy')];
  if (policy === 'OrderedReady' || policy === 'Parallel') return [];
  return [invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'")];
}

/** Upstream's ParseRange of `a-b`: its error, or undefined. */
function rangeError(text: string): string | undefined {
  const parts = text.split('-');
  if (parts.length !== 2) return `invalid range ${text}`;
  try {
    if (goAtoi(parts[0]!) > goAtoi(parts[1]!)) return `invalid range ${text}`;
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
}

function reserveOrdinalsErrors(spec: StatefulSetSpec): FieldError[] {
  const ordinals = spec.reserveOrdinals ?? [];
  const out: FieldError[] = [];
  const refuse = (detail: string) => out.push(invalid('spec', goReserveOrdinals(ordinals), detail));
  for (const [i, ordinal] of ordinals.entries()) {
    if (typeof ordinal === 'string') {
      if (!RESERVE_RANGE.test(ordinal)) refuse(`${i} th reserve ordinal is not a valid range: ${ordinal}`);
      const e = rangeError(ordinal);
      if (e) refuse(`${i} th reserve ordinal is invalid: ${ordinal}, err = ${e}`);
    } else if (typeof ordinal === 'number' && ordinal < 0)
      refuse(`${i} th reserve ordinal is negative: ${ordinal}`);
  }
  return out;
}

/** Upstream's validateMaxUnavailableField (rolling update and scale strategy alike). */
function maxUnavailableErrors(value: IntOrString, spec: StatefulSetSpec, field: string): FieldError[] {
  const out = positiveIntOrPercentErrors(value, field);
  try {
    const n = deprecatedIntPercentValue(value, 1, true);
    if (n < 1) out.push(invalid(field, n, 'should not be less than 1'));
  } catch (err) {
    out.push(invalid(field, 0, `getValueFromIntOrPercent error: ${(err as Error).message}`));
  }
  if (spec.podManagementPolicy !== 'Parallel' && value !== 1)
    out.push(invalid(field, goIntOrString(value), 'can only work with Parallel PodManagementPolicyType'));
  return out;
}

function podUpdatePolicyErrors(spec: StatefulSetSpec, r: RollingUpdateStatefulSetStrategy): FieldError[] {
  const policy = r.podUpdatePolicy ?? '';
  switch (policy) {
    case '':
      return [required('spec.updateStrategy.rollingUpdate.podUpdatePolicy')];
    case 'ReCreate':
      return [];
    case 'InPlaceIfPossible':
    case 'InPlaceOnly': {
      const gates = spec.template?.spec?.readinessGates ?? undefined;
      if ((gates ?? []).some((g) => g?.conditionType === INPLACE_UPDATE_READY)) return [];
      return [
        invalid(
          'spec.template.spec.readinessGates',
          goReadinessGates(gates),
          `must contains ${INPLACE_UPDATE_READY} when podUpdatePolicy is ${policy}`,
        ),
      ];
    }
    default:
      return [
        invalid(
          'spec.updateStrategy.rollingUpdate.podUpdatePolicy',
          policy,
          "must be 'ReCreate', InPlaceIfPossible or 'InPlaceOnly'",
        ),
      ];
  }
}

function rollingUpdateErrors(spec: StatefulSetSpec, r: RollingUpdateStatefulSetStrategy): FieldError[] {
  const f = 'spec.updateStrategy.rollingUpdate';
  // (The defaulting webhook always sets partition and minReadySeconds; upstream reads them unchecked.)
  const out = [
    ...nonNegative(`${f}.partition`, r.partition),
    ...nonNegative(`${f}.minReadySeconds`, r.minReadySeconds),
  ];
  if ((r.minReadySeconds ?? 0) > MAX_MIN_READY_SECONDS)
    out.push(invalid(`${f}.minReadySeconds`, r.minReadySeconds, 'must be no more than 300 seconds'));
  if (r.maxUnavailable === undefined || r.maxUnavailable === null) out.push(required(`${f}.maxUnavailable`));
  else out.push(...maxUnavailableErrors(r.maxUnavailable, spec, `${f}.maxUnavailable`));
  out.push(...podUpdatePolicyErrors(spec, r));
  if (r.unorderedUpdate) {
    if (spec.podManagementPolicy !== 'Parallel')
      out.push(
        required(
          `${f}.unorderedUpdate`,
          'unorderedUpdate can only work with Parallel PodManagementPolicyType',
        ),
      );
    const why = priorityStrategyError(r.unorderedUpdate.priorityStrategy);
    if (why) out.push(required(`${f}.unorderedUpdate.priorityStrategy`, why));
  }
  return out;
}

function updateStrategyErrors(spec: StatefulSetSpec): FieldError[] {
  const strategy = spec.updateStrategy;
  const rolling = strategy?.rollingUpdate;
  switch (strategy?.type ?? '') {
    case '':
      return [required('spec.updateStrategy')];
    case 'OnDelete':
      return rolling
        ? [
            invalid(
              'spec.updateStrategy.rollingUpdate',
              goRollingUpdate(rolling),
              "only allowed for updateStrategy 'RollingUpdate'",
            ),
          ]
        : [];
    case 'RollingUpdate':
      return rolling ? rollingUpdateErrors(spec, rolling) : [];
    default:
      return [
        invalid('spec.updateStrategy', goUpdateStrategy(strategy), "must be 'RollingUpdate' or 'OnDelete'"),
      ];
  }
}

/** Upstream's ValidatePersistentVolumeClaimRetentionPolicy: each policy Retain or Delete. */
export function retentionPolicyErrors(spec: StatefulSetSpec | undefined): FieldError[] {
  const policy = spec?.persistentVolumeClaimRetentionPolicy;
  if (!policy) return [];
  const out: FieldError[] = [];
  for (const when of ['whenDeleted', 'whenScaled'] as const) {
    const value = policy[when] ?? '';
    if (value !== 'Retain' && value !== 'Delete')
      out.push(
        notSupported(`spec.persistentVolumeClaimRetentionPolicy.${when}`, value, ['Retain', 'Delete']),
      );
  }
  return out;
}

const hasTerms = (s: NonNullable<StatefulSetSpec['selector']>) =>
  Object.keys(s.matchLabels ?? {}).length + (s.matchExpressions?.length ?? 0) > 0;

function selectorErrors(spec: StatefulSetSpec): FieldError[] {
  const selector = spec.selector ?? undefined;
  const out: FieldError[] = [];
  if (!selector) out.push(required('spec.selector'));
  else {
    out.push(...labelSelectorFieldErrors(selector, 'spec.selector'));
    if (!hasTerms(selector))
      out.push(
        invalid('spec.selector', goLabelSelector(selector), 'empty selector is invalid for statefulset'),
      );
  }
  if (labelSelectorError(selector)) {
    out.push(invalid('spec.selector', goLabelSelector(selector), ''));
    return out;
  }
  // As a label selector: none selects nothing, an empty one everything.
  const labels = spec.template?.metadata?.labels;
  if (!selector || (hasTerms(selector) && !labelSelectorMatches(selector, labels)))
    out.push(
      invalid(
        'spec.template.metadata.labels',
        goStringMap(labels),
        '`selector` does not match template `labels`',
      ),
    );
  out.push(...podTemplateMetadataErrors(spec.template, 'spec.template'));
  return out;
}

function specErrors(spec: StatefulSetSpec): FieldError[] {
  const out = [...podManagementPolicyErrors(spec), ...reserveOrdinalsErrors(spec)];
  const scaleMaxUnavailable = spec.scaleStrategy?.maxUnavailable;
  if (scaleMaxUnavailable !== undefined && scaleMaxUnavailable !== null)
    out.push(...maxUnavailableErrors(scaleMaxUnavailable, spec, 'spec.scaleStrategy.maxUnavailable'));
  out.push(
    ...updateStrategyErrors(spec),
    ...retentionPolicyErrors(spec),
    ...nonNegative('spec.replicas', spec.replicas),
  );
  out.push(...selectorErrors(spec));
  const podSpec = spec.template?.spec;
  if (podSpec?.restartPolicy && podSpec.restartPolicy !== 'Always')
    out.push(notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy, ['Always']));
  if (podSpec?.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null)
    out.push(
      forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in StatefulSet is not Supported',
      ),
    );
  return out;
}

/** Every error of an Advanced StatefulSet (metadata, then spec), in upstream's order. */
export function statefulSetErrors(sts: StatefulSet): FieldError[] {
  return [
    ...objectMetaErrors(sts.metadata, nameIsDnsLabel),
    ...specErrors(sts.spec ?? ({} as StatefulSetSpec)),
  ];
}
