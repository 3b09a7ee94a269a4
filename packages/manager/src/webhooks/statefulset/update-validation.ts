import type { StatefulSet, StatefulSetSpec } from '@kruise/api';
import { type FieldError, forbidden, nonNegative } from '../field-errors.ts';
import { objectMetaUpdateErrors } from '../object-meta-validation.ts';
import { firstNonImageChange, specChangedBeyond } from '../spec-update.ts';
import { retentionPolicyErrors } from './spec-validation.ts';

/** Spec fields an update may change (the selector, serviceName and podManagementPolicy may not). */
const MUTABLE: (keyof StatefulSetSpec)[] = [
  'replicas',
  'ordinals',
  'template',
  'reserveOrdinals',
  'lifecycle',
  'revisionHistoryLimit',
  'persistentVolumeClaimRetentionPolicy',
  'scaleStrategy',
  'volumeClaimTemplates',
  'volumeClaimUpdateStrategy',
  'updateStrategy',
];

/** Upstream's ValidateStatefulSetUpdate: metadata rules, the immutable spec fields, replicas and the retention policy. */
export function statefulSetUpdateErrors(sts: StatefulSet, old: StatefulSet): FieldError[] {
  const out = objectMetaUpdateErrors(sts.metadata, old.metadata);
  if (specChangedBeyond(sts.spec, old.spec, MUTABLE, 'StatefulSetSpec'))
    out.push(
      forbidden(
        'spec',
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'reserveOrdinals', 'lifecycle', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', `volumeClaimTemplates`, `VolumeClaimUpdateStrategy` and 'updateStrategy' are forbidden",
      ),
    );
  out.push(...nonNegative('spec.replicas', sts.spec?.replicas), ...retentionPolicyErrors(sts.spec));
  return out;
}

/** Upstream's (unanchored) pattern of the patch paths an InPlaceOnly update may touch. */
const IMAGE_PATH = /\/containers\/([0-9]+)\/image/;

/**
 * With podUpdatePolicy InPlaceOnly, an update of the template may only replace container images:
 * upstream's refusal of anything else (`invalid template modified with InPlaceOnly strategy: add
 * /containers/0/env, …`), or undefined.
 */
export function inPlaceOnlyRefusal(sts: StatefulSet, old: StatefulSet): string | undefined {
  if (sts.spec?.updateStrategy?.rollingUpdate?.podUpdatePolicy !== 'InPlaceOnly') return undefined;
  const change = firstNonImageChange(old.spec?.template?.spec, sts.spec.template?.spec, IMAGE_PATH);
  return change
    ? `invalid template modified with InPlaceOnly strategy: ${change}, currently only image update is allowed for InPlaceOnly`
    : undefined;
}
