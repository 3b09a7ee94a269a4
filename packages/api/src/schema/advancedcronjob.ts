import { type Static, Type } from '@sinclair/typebox';
import type { JobTemplateSpec } from 'kubernetes-types/batch/v1.js';
import { BroadcastJobSpecSchema } from './broadcastjob.ts';
import { ObjectMetaSchema, ObjectReferenceSchema, typeMetaFields } from './common.ts';
import { ImageListPullJobSpecSchema } from './imagelistpulljob.ts';
import { Bool, Int32, Int64, Str, Time } from './primitives.ts';

/**
 * AdvancedCronJob (`apps.kruise.io`): v1beta1, the storage version, and v1alpha1, served and
 * converted (v1alpha1 has no `imageListPullJobTemplate`).
 */

/** `Allow` (default), `Forbid` or `Replace`. */
export type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';

/** The kind of job an AdvancedCronJob runs (its `status.type`). */
export type TemplateKind = 'Job' | 'BroadcastJob' | 'ImageListPullJob';

/** A batch/v1 JobTemplateSpec, kept as sent (the webhook validates its pod template). */
const JobTemplateSpecSchema = Type.Unsafe<JobTemplateSpec>({
  description: 'Specifies the job that will be created when executing a CronJob.',
  'x-kubernetes-preserve-unknown-fields': true,
});

const BroadcastJobTemplateSpecSchema = Type.Object(
  { metadata: Type.Optional(ObjectMetaSchema), spec: Type.Optional(BroadcastJobSpecSchema) },
  { description: 'Specifies the broadcast job that will be created when executing a BroadcastCronJob.' },
);
export type BroadcastJobTemplateSpec = Static<typeof BroadcastJobTemplateSpecSchema>;

const ImageListPullJobTemplateSpecSchema = Type.Object(
  { metadata: Type.Optional(ObjectMetaSchema), spec: Type.Optional(ImageListPullJobSpecSchema) },
  {
    description:
      'Specifies the image list pull job that will be created when executing a CronImageListPullJob.',
  },
);
export type ImageListPullJobTemplateSpec = Static<typeof ImageListPullJobTemplateSpecSchema>;

const templateDescription = 'Specifies the job that will be created when executing a CronJob.';

const CronJobTemplateSchema = Type.Object(
  {
    jobTemplate: Type.Optional(JobTemplateSpecSchema),
    broadcastJobTemplate: Type.Optional(BroadcastJobTemplateSpecSchema),
    imageListPullJobTemplate: Type.Optional(ImageListPullJobTemplateSpecSchema),
  },
  { description: templateDescription },
);
export type CronJobTemplate = Static<typeof CronJobTemplateSchema>;

const CronJobTemplateV1alpha1Schema = Type.Object(
  {
    jobTemplate: Type.Optional(JobTemplateSpecSchema),
    broadcastJobTemplate: Type.Optional(BroadcastJobTemplateSpecSchema),
  },
  { description: templateDescription },
);

const specFields = {
  schedule: Type.String({
    minLength: 0,
    description: 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.',
  }),
  timeZone: Type.Optional(
    Str(
      'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kruise-controller-manager process.',
    ),
  ),
  startingDeadlineSeconds: Type.Optional(
    Int64(
      'Optional deadline in seconds for starting the job if it misses scheduled time for any reason.  Missed jobs executions will be counted as failed ones.',
    ),
  ),
  concurrencyPolicy: Type.Optional(
    Type.Unsafe<ConcurrencyPolicy>({
      type: 'string',
      enum: ['Allow', 'Forbid', 'Replace'],
      description:
        'Specifies how to treat concurrent executions of a Job. Valid values are: - "Allow" (default): allows CronJobs to run concurrently; - "Forbid": forbids concurrent runs, skipping next run if previous run hasn\'t finished yet; - "Replace": cancels currently running job and replaces it with a new one',
    }),
  ),
  paused: Type.Optional(Bool('Paused will pause the cron job.')),
  successfulJobsHistoryLimit: Type.Optional(
    Int32(
      'The number of successful finished jobs to retain. This is a pointer to distinguish between explicit zero and not specified.',
    ),
  ),
  failedJobsHistoryLimit: Type.Optional(
    Int32(
      'The number of failed finished jobs to retain. This is a pointer to distinguish between explicit zero and not specified.',
    ),
  ),
};

/** The desired state of an AdvancedCronJob at v1beta1. */
export const AdvancedCronJobSpecSchema = Type.Object(
  { ...specFields, template: CronJobTemplateSchema },
  { description: 'AdvancedCronJobSpec defines the desired state of AdvancedCronJob' },
);
export type AdvancedCronJobSpec = Static<typeof AdvancedCronJobSpecSchema>;

const AdvancedCronJobSpecV1alpha1Schema = Type.Object(
  { ...specFields, template: CronJobTemplateV1alpha1Schema },
  { description: 'AdvancedCronJobSpec defines the desired state of AdvancedCronJob' },
);

/** What the controller reports (the same at both versions). */
export const AdvancedCronJobStatusSchema = Type.Object(
  {
    type: Type.Optional(Type.Unsafe<TemplateKind>({ type: 'string' })),
    active: Type.Optional(
      Type.Array(ObjectReferenceSchema, { description: 'A list of pointers to currently running jobs.' }),
    ),
    lastScheduleTime: Type.Optional(
      Time('Information when was the last time the job was successfully scheduled.'),
    ),
  },
  { description: 'AdvancedCronJobStatus defines the observed state of AdvancedCronJob' },
);
export type AdvancedCronJobStatus = Static<typeof AdvancedCronJobStatusSchema>;

/** AdvancedCronJob at v1beta1, the storage version. */
export const AdvancedCronJobSchema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(AdvancedCronJobSpecSchema),
  status: Type.Optional(AdvancedCronJobStatusSchema),
});
export type AdvancedCronJob = Static<typeof AdvancedCronJobSchema>;

/** AdvancedCronJob at v1alpha1: no `imageListPullJobTemplate`. */
export const AdvancedCronJobV1alpha1Schema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(AdvancedCronJobSpecV1alpha1Schema),
  status: Type.Optional(AdvancedCronJobStatusSchema),
});
