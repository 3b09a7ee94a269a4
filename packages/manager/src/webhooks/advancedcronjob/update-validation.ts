import type { AdvancedCronJob, AdvancedCronJobSpec } from '@kruise/api';
import { encodeStruct } from '../../workload/revision/go-encode.ts';
import { type FieldError, forbidden } from '../field-errors.ts';
import { objectMetaUpdateErrors } from '../object-meta-validation.ts';
import { advancedCronJobSpecErrors } from './spec-validation.ts';

/** The spec fields an update may change (and the ImageListPullJob template, when it had one). */
const MUTABLE = [
  'schedule',
  'concurrencyPolicy',
  'successfulJobsHistoryLimit',
  'failedJobsHistoryLimit',
  'startingDeadlineSeconds',
  'paused',
  'timeZone',
] as const;

const encoded = (spec: AdvancedCronJobSpec) =>
  JSON.stringify(encodeStruct(spec as unknown as Record<string, unknown>, 'AdvancedCronJobSpec'));

/**
 * Upstream's validateAdvancedCronJobUpdate: the metadata update rules, the spec's own errors, and
 * no change to the spec beyond the mutable fields (compared as Go decodes the spec).
 */
export function advancedCronJobUpdateErrors(acj: AdvancedCronJob, old: AdvancedCronJob): FieldError[] {
  const errors = [
    ...objectMetaUpdateErrors(acj.metadata, old.metadata),
    ...advancedCronJobSpecErrors(acj.spec),
  ];
  const oldSpec = old.spec ?? ({ schedule: '', template: {} } as AdvancedCronJobSpec);
  const kept: Record<string, unknown> = { ...(acj.spec ?? {}) };
  for (const field of MUTABLE) kept[field] = oldSpec[field];
  if (oldSpec.template?.imageListPullJobTemplate)
    kept.template = {
      ...(acj.spec?.template ?? {}),
      imageListPullJobTemplate: oldSpec.template.imageListPullJobTemplate,
    };
  if (encoded(kept as AdvancedCronJobSpec) !== encoded(oldSpec))
    errors.push(
      forbidden(
        'spec',
        "updates to advancedcronjob spec for fields other than 'imageListPullJobTemplate', 'schedule', 'concurrencyPolicy', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit', 'startingDeadlineSeconds', 'timeZone' and 'paused' are forbidden",
      ),
    );
  return errors;
}
