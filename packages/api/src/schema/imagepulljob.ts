import { type Static, Type } from '@sinclair/typebox';
import { labelSelectorFields, PullPolicySchema, SandboxConfigSchema, typeMetaFields } from './common.ts';
import { Int32, Int64, IntOrString, Str, Time } from './primitives.ts';

/** When a job is considered finished. */
export const CompletionPolicySchema = Type.Object({
  type: Type.Optional(Str('Type of completion policy: Always (default) or Never.')),
  activeDeadlineSeconds: Type.Optional(Int64('Only works for Always type.')),
  ttlSecondsAfterFinished: Type.Optional(Int32('Only works for Always type.')),
});
export type CompletionPolicy = Static<typeof CompletionPolicySchema>;

/** Nodes by name, or by label selector (not both). */
export const ImagePullJobNodeSelectorSchema = Type.Object({
  names: Type.Optional(
    Type.Array(Type.String(), { description: 'Names specify a set of nodes to execute the job.' }),
  ),
  ...labelSelectorFields,
});
export type ImagePullJobNodeSelector = Static<typeof ImagePullJobNodeSelectorSchema>;

/** Pods whose nodes pull the image. */
export const ImagePullJobPodSelectorSchema = Type.Object({ ...labelSelectorFields });
export type ImagePullJobPodSelector = Static<typeof ImagePullJobPodSelectorSchema>;

/** Fields shared by ImagePullJob and ImageListPullJob. */
export const imagePullJobTemplateFields = {
  pullSecrets: Type.Optional(
    Type.Array(Type.String(), { description: 'Secret names in the same namespace.' }),
  ),
  selector: Type.Optional(ImagePullJobNodeSelectorSchema),
  podSelector: Type.Optional(ImagePullJobPodSelectorSchema),
  parallelism: Type.Optional(
    IntOrString('Parallelism is the requested parallelism; defaults to 1, 0 pauses.'),
  ),
  pullPolicy: Type.Optional(PullPolicySchema),
  completionPolicy: CompletionPolicySchema,
  sandboxConfig: Type.Optional(SandboxConfigSchema),
  imagePullPolicy: Type.Optional(
    Str('Image pull policy. One of Always, IfNotPresent. Defaults to IfNotPresent.'),
  ),
};
export const ImagePullJobTemplateSchema = Type.Object(imagePullJobTemplateFields);
export type ImagePullJobTemplate = Static<typeof ImagePullJobTemplateSchema>;

export const ImagePullJobSpecSchema = Type.Object({
  image: Str('Image is the image to be pulled by the job'),
  ...imagePullJobTemplateFields,
});
export type ImagePullJobSpec = Static<typeof ImagePullJobSpecSchema>;

export const ImagePullJobStatusSchema = Type.Object({
  startTime: Type.Optional(Time()),
  completionTime: Type.Optional(Time()),
  desired: Int32(
    'The desired number of pulling tasks, this is typically equal to the number of nodes satisfied.',
  ),
  active: Type.Optional(Int32()),
  succeeded: Type.Optional(Int32()),
  failed: Type.Optional(Int32()),
  message: Type.Optional(Str('The text prompt for job running status.')),
  failedNodes: Type.Optional(Type.Array(Type.String())),
});
export type ImagePullJobStatus = Static<typeof ImagePullJobStatusSchema>;

/** ImagePullJob: pull one image on a set of nodes. */
export const ImagePullJobSchema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(ImagePullJobSpecSchema),
  status: Type.Optional(ImagePullJobStatusSchema),
});
export type ImagePullJob = Static<typeof ImagePullJobSchema>;
