import { type Static, Type } from '@sinclair/typebox';
import { typeMetaFields } from './common.ts';
import { imagePullJobTemplateFields } from './imagepulljob.ts';
import { Int32, Str, Time } from './primitives.ts';

export const ImageListPullJobSpecSchema = Type.Object({
  images: Type.Array(Type.String(), { description: 'Images is the image list to be pulled by the job' }),
  ...imagePullJobTemplateFields,
});
export type ImageListPullJobSpec = Static<typeof ImageListPullJobSpecSchema>;

export const FailedImageStatusSchema = Type.Object({
  imagePullJob: Type.Optional(Str()),
  name: Type.Optional(Str()),
  message: Type.Optional(Str()),
});
export type FailedImageStatus = Static<typeof FailedImageStatusSchema>;

export const ImageListPullJobStatusSchema = Type.Object({
  startTime: Type.Optional(Time()),
  completionTime: Type.Optional(Time()),
  desired: Int32('The desired number of ImagePullJobs.'),
  active: Type.Optional(Int32()),
  completed: Type.Optional(Int32()),
  succeeded: Type.Optional(Int32()),
  failedImageStatuses: Type.Optional(Type.Array(FailedImageStatusSchema)),
});
export type ImageListPullJobStatus = Static<typeof ImageListPullJobStatusSchema>;

/** ImageListPullJob: one ImagePullJob per image of a list. */
export const ImageListPullJobSchema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(ImageListPullJobSpecSchema),
  status: Type.Optional(ImageListPullJobStatusSchema),
});
export type ImageListPullJob = Static<typeof ImageListPullJobSchema>;
