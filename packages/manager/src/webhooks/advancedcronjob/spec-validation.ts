import type { AdvancedCronJob, AdvancedCronJobSpec } from '@kruise/api';
import { CronPanic, loadGoLocation, parseCronSchedule } from '@kruise/kube-compat';
import { type FieldError, forbidden, invalid, nonNegative } from '../field-errors.ts';
import { dashedNameErrors, objectMetaErrors } from '../object-meta-validation.ts';
import { podTemplateErrors } from '../pod-template-validation.ts';
import { imageListPullJobTemplateErrors, podTemplateOf } from './template-validation.ts';

/** Upstream's validateAdvancedCronJobName: letters, digits and dashes, at most 63 characters. */
export const advancedCronJobNameErrors = dashedNameErrors('AdvancedCronJob name');

/** The message of a schedule robfig/cron cannot parse, as upstream's webhook words it. */
export function scheduleError(schedule: string): string | undefined {
  try {
    parseCronSchedule(schedule);
    return undefined;
  } catch (err) {
    if (err instanceof CronPanic) return `invalid cron schedule: ${err.message}`;
    return (err as Error).message;
  }
}

function scheduleErrors(spec: AdvancedCronJobSpec): FieldError[] {
  const schedule = spec.schedule ?? '';
  const errors: FieldError[] = [];
  if (schedule.length === 0)
    errors.push(
      invalid('spec.schedule', schedule, 'schedule cannot be empty, please provide valid cron schedule.'),
    );
  const parseProblem = scheduleError(schedule);
  if (parseProblem) errors.push(invalid('spec.schedule', schedule, parseProblem));
  if (schedule.includes('TZ') && spec.timeZone != null)
    errors.push(
      invalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'),
    );
  return errors;
}

function timeZoneErrors(timeZone: string | undefined): FieldError[] {
  if (timeZone == null) return [];
  if (timeZone.length === 0)
    return [invalid('spec.timeZone', timeZone, 'timeZone must be nil or non-empty string')];
  const errors: FieldError[] = [];
  if (timeZone.toLowerCase() === 'local')
    errors.push(
      invalid(
        'spec.timeZone',
        timeZone,
        'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
      ),
    );
  try {
    loadGoLocation(timeZone);
  } catch (err) {
    errors.push(invalid('spec.timeZone', timeZone, (err as Error).message));
  }
  return errors;
}

const TEMPLATE_COUNT_MESSAGE =
  'either JobTemplate or BroadcastJobTemplate or ImageListPullJobTemplate should be provided';

function templateErrors(spec: AdvancedCronJobSpec): FieldError[] {
  const template = spec.template ?? {};
  const errors: FieldError[] = [];
  let count = 0;
  if (template.jobTemplate) {
    count++;
    errors.push(...podTemplateErrors(podTemplateOf(template.jobTemplate), 'spec.template'));
  }
  if (template.broadcastJobTemplate) {
    count++;
    errors.push(...podTemplateErrors(podTemplateOf(template.broadcastJobTemplate), 'spec.template'));
  }
  if (template.imageListPullJobTemplate) {
    count++;
    const policy = spec.concurrencyPolicy ?? '';
    if (policy !== 'Replace' && policy !== 'Forbid')
      errors.push(
        invalid(
          'spec.spec.concurrencyPolicy',
          policy,
          `concurrencyPolicy should be Replace or Forbid, but current value is: ${policy}`,
        ),
      );
    errors.push(
      ...imageListPullJobTemplateErrors(
        template.imageListPullJobTemplate,
        'spec.template.imageListPullJobTemplate',
      ),
    );
  }
  if (count === 0)
    errors.push(forbidden('spec.template', `spec must have one template, ${TEMPLATE_COUNT_MESSAGE}`));
  else if (count > 1)
    errors.push(forbidden('spec.template', `spec can have only one template, ${TEMPLATE_COUNT_MESSAGE}`));
  return errors;
}

/** Upstream's validateAdvancedCronJobSpec, in its order. */
export function advancedCronJobSpecErrors(spec: AdvancedCronJobSpec | undefined): FieldError[] {
  const s = spec ?? ({ schedule: '', template: {} } as AdvancedCronJobSpec);
  return [
    ...scheduleErrors(s),
    ...templateErrors(s),
    ...nonNegative('spec.startingDeadlineSeconds', s.startingDeadlineSeconds),
    ...nonNegative('spec.successfulJobsHistoryLimit', s.successfulJobsHistoryLimit),
    ...nonNegative('spec.failedJobsHistoryLimit', s.failedJobsHistoryLimit),
    ...timeZoneErrors(s.timeZone),
  ];
}

/** Every error of an AdvancedCronJob on create: its metadata, then its spec. */
export function advancedCronJobErrors(acj: AdvancedCronJob): FieldError[] {
  return [
    ...objectMetaErrors(acj.metadata, advancedCronJobNameErrors),
    ...advancedCronJobSpecErrors(acj.spec),
  ];
}
