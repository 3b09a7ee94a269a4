import {
  type DaemonSet,
  type DaemonSetSpec,
  type DaemonSetUpdateStrategy,
  type RollingUpdateDaemonSet,
  setPodSpecDefaults,
} from '@kruise/api';
import { type IntOrString, labelSelectorIsEmpty, labelSelectorMatches } from '@kruise/kube-compat';
import type { PodSpec, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import {
  type FieldError,
  forbidden,
  goIntOrString,
  goLabelSelector,
  goPointer,
  goString,
  goStringMap,
  goStruct,
  invalid,
  nonNegative,
  notSupported,
  required,
} from '../field-errors.ts';
import { notMoreThan100PercentErrors, PERCENT, positiveIntOrPercentErrors } from '../int-or-percent.ts';
import { nameIsDnsSubdomain, objectMetaErrors } from '../object-meta-validation.ts';
import { podTemplateErrors } from '../pod-template-validation.ts';
import { labelSelectorError, labelSelectorFieldErrors } from '../validation.ts';
import type { DaemonSetVersion } from './versions.ts';

/**
 * Advanced DaemonSet's validation of an object (upstream's validateDaemonSetSpec and
 * validateDaemonSetSpecV1beta1), with upstream's field paths and words — including its doubled
 * `rollingUpdate.rollingUpdate` in the paths of the rolling update type and partition.
 */

const ROLLING = 'spec.updateStrategy.rollingUpdate';

const present = (v: unknown) => v !== undefined && v !== null;

/** Upstream's getIntOrPercentValue: a valid percentage's number, an int, or a string's Atoi (0 when not a number). */
function intOrPercentValue(v: IntOrString): number {
  if (typeof v === 'number') return v;
  if (PERCENT.test(v)) return Number(v.slice(0, -1));
  return /^[+-]?\d+$/.test(v) ? Number(v) : 0;
}

const TYPES: Record<DaemonSetVersion, string[]> = {
  v1beta1: ['Standard', 'InPlaceIfPossible'],
  v1alpha1: ['Standard', 'Surging', 'InPlaceIfPossible'],
};

function rollingUpdateErrors(rolling: RollingUpdateDaemonSet, version: DaemonSetVersion): FieldError[] {
  const out: FieldError[] = [];
  const bounded = (v: IntOrString, field: string) => {
    out.push(...positiveIntOrPercentErrors(v, field), ...notMoreThan100PercentErrors(v, field));
  };
  const { maxUnavailable, maxSurge, partition } = rolling;
  const hasUnavailable = present(maxUnavailable) && intOrPercentValue(maxUnavailable!) !== 0;
  const hasSurge = present(maxSurge) && intOrPercentValue(maxSurge!) !== 0;
  if (hasUnavailable) bounded(maxUnavailable!, `${ROLLING}.maxUnavailable`);
  if (hasSurge) bounded(maxSurge!, `${ROLLING}.maxSurge`);
  if (hasUnavailable && hasSurge)
    out.push(
      invalid(
        `${ROLLING}.maxSurge`,
        goIntOrString(maxSurge),
        'may not be set when maxUnavailable is non-zero',
      ),
    );
  else if (!hasUnavailable && !hasSurge)
    out.push(required(`${ROLLING}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
  const type = rolling.rollingUpdateType ?? '';
  if (type === 'InPlaceIfPossible') {
    if (hasSurge) out.push(required(`${ROLLING}.maxSurge`, 'must be 0 for InPlaceIfPossible type'));
  } else if (type === 'Surging' && version === 'v1alpha1') {
    if (hasUnavailable) out.push(required(`${ROLLING}.maxUnavailable`, 'must be 0 for Surging type'));
  } else if (type !== '' && type !== 'Standard')
    out.push(notSupported(`${ROLLING}.rollingUpdate.type`, type, TYPES[version]));
  if (present(partition)) {
    const field = `${ROLLING}.rollingUpdate.partition`;
    out.push(
      ...(typeof partition === 'number'
        ? nonNegative(field, partition)
        : positiveIntOrPercentErrors(partition!, field)),
      ...notMoreThan100PercentErrors(partition!, field),
    );
  }
  return out;
}

/** `v1beta1.DaemonSetUpdateStrategy{Type:"…", RollingUpdate:(*v1beta1.RollingUpdateDaemonSet)(…)}`. */
const goUpdateStrategy = (s: DaemonSetUpdateStrategy, version: DaemonSetVersion) =>
  goStruct(`${version}.DaemonSetUpdateStrategy`, [
    ['Type', goString(s.type)],
    ['RollingUpdate', goPointer(`${version}.RollingUpdateDaemonSet`, present(s.rollingUpdate))],
  ]);

function updateStrategyErrors(spec: DaemonSetSpec, version: DaemonSetVersion): FieldError[] {
  const strategy = spec.updateStrategy ?? {};
  switch (strategy.type ?? '') {
    case 'OnDelete':
      return [];
    case 'RollingUpdate':
      return strategy.rollingUpdate
        ? rollingUpdateErrors(strategy.rollingUpdate, version)
        : [required(ROLLING)];
    default:
      return [
        notSupported('spec.updateStrategy', goUpdateStrategy(strategy, version), [
          'RollingUpdate',
          'OnDelete',
        ]),
      ];
  }
}

function selectorErrors(spec: DaemonSetSpec): FieldError[] {
  const selector = spec.selector ?? undefined;
  const out = labelSelectorFieldErrors(selector, 'spec.selector');
  // As LabelSelectorAsSelector reads it: none selects nothing, an empty one everything.
  const labels = spec.template?.metadata?.labels;
  if (
    !labelSelectorError(selector) &&
    (!selector || (!labelSelectorIsEmpty(selector) && !labelSelectorMatches(selector, labels)))
  )
    out.push(
      invalid(
        'spec.template.metadata.labels',
        goStringMap(labels),
        '`selector` does not match template `labels`',
      ),
    );
  if (selector && labelSelectorIsEmpty(selector))
    out.push(invalid('spec.selector', goLabelSelector(selector), 'empty selector is invalid for daemonset'));
  return out;
}

/** The pod template as upstream validates it: with the Kubernetes pod-spec defaults (on a copy). */
function defaultedTemplate(template: PodTemplateSpec | undefined): PodTemplateSpec {
  const copy = structuredClone(template ?? {});
  copy.spec ??= {} as PodSpec;
  setPodSpecDefaults(copy.spec);
  return copy;
}

/** The spec's errors, in upstream's order. */
export function daemonSetSpecErrors(spec: DaemonSetSpec, version: DaemonSetVersion): FieldError[] {
  const out = selectorErrors(spec);
  const template = defaultedTemplate(spec.template);
  out.push(...podTemplateErrors(template, 'spec.template'));
  const podSpec = template.spec!;
  if (podSpec.restartPolicy !== 'Always')
    out.push(notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', ['Always']));
  if (present(podSpec.activeDeadlineSeconds))
    out.push(
      forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in DaemonSet is not Supported',
      ),
    );
  out.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  out.push(...updateStrategyErrors(spec, version));
  out.push(...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit));
  if (spec.lifecycle?.inPlaceUpdate)
    out.push(forbidden('spec.lifecycle.inPlaceUpdate', 'inPlaceUpdate hook has not supported yet'));
  return out;
}

/** Every error of a new Advanced DaemonSet (metadata with a DNS-subdomain name, then spec). */
export function daemonSetErrors(ds: DaemonSet, version: DaemonSetVersion): FieldError[] {
  return [
    ...objectMetaErrors(ds.metadata, nameIsDnsSubdomain),
    ...daemonSetSpecErrors(ds.spec ?? ({} as DaemonSetSpec), version),
  ];
}
