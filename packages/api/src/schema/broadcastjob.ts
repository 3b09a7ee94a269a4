import { type Static, Type } from '@sinclair/typebox';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { typeMetaFields } from './common.ts';
import { Bool, Int32, Int64, IntOrString, Str, Time } from './primitives.ts';

/**
 * BroadcastJob (`apps.kruise.io` kind BroadcastJob): one pod to completion on every eligible node.
 * v1beta1 is the storage version; v1alpha1 is served with the very same fields (the conversion only
 * changes `apiVersion`).
 */

/** The pod template, kept as the API server stores it (the webhook validates it as core/v1 does). */
const PodTemplateSpecSchema = Type.Unsafe<PodTemplateSpec>({
  description: 'Template describes the pod that will be created when executing a job.',
  'x-kubernetes-preserve-unknown-fields': true,
});

/** `Always` (default): the job finishes once every desired node ran its pod; `Never`: it never does. */
export type BroadcastJobCompletionPolicyType = 'Always' | 'Never';

/** `FailFast` (default), `Continue` or `Pause`. */
export type BroadcastJobFailurePolicyType = 'FailFast' | 'Continue' | 'Pause';

/** The `status.phase` values. */
export type BroadcastJobPhase = 'completed' | 'running' | 'paused' | 'failed';

/** The condition types a finished job gets. */
export type BroadcastJobConditionType = 'Complete' | 'Failed';

export const BroadcastJobCompletionPolicySchema = Type.Object(
  {
    type: Type.Optional(
      Type.Unsafe<BroadcastJobCompletionPolicyType>({
        type: 'string',
        description: 'Type indicates the type of the CompletionPolicy. Default is Always.',
      }),
    ),
    activeDeadlineSeconds: Type.Optional(
      Int64(
        'ActiveDeadlineSeconds specifies the duration in seconds relative to the startTime that the job may be active before the system tries to terminate it; value must be positive integer. Only works for Always type.',
      ),
    ),
    ttlSecondsAfterFinished: Type.Optional(
      Int32(
        "ttlSecondsAfterFinished limits the lifetime of a Job that has finished execution (either Complete or Failed). If this field is set, ttlSecondsAfterFinished after the Job finishes, it is eligible to be automatically deleted. When the Job is being deleted, its lifecycle guarantees (e.g. finalizers) will be honored. If this field is unset, the Job won't be automatically deleted. If this field is set to zero, the Job becomes eligible to be deleted immediately after it finishes. This field is alpha-level and is only honored by servers that enable the TTLAfterFinished feature. Only works for Always type",
      ),
    ),
  },
  {
    description:
      'CompletionPolicy indicates the completion policy of the job. Default is Always CompletionPolicyType.',
  },
);
export type BroadcastJobCompletionPolicy = Static<typeof BroadcastJobCompletionPolicySchema>;

export const BroadcastJobFailurePolicySchema = Type.Object(
  {
    type: Type.Optional(
      Type.Unsafe<BroadcastJobFailurePolicyType>({
        type: 'string',
        description: 'Type indicates the type of FailurePolicyType. Default is FailurePolicyTypeFailFast.',
      }),
    ),
    restartLimit: Type.Optional(
      Int32('RestartLimit specifies the number of retries before marking the pod failed.'),
    ),
  },
  { description: 'FailurePolicy indicates the behavior of the job, when failed pod is found.' },
);
export type BroadcastJobFailurePolicy = Static<typeof BroadcastJobFailurePolicySchema>;

/** The desired state of a BroadcastJob (the same at both versions). */
export const BroadcastJobSpecSchema = Type.Object(
  {
    parallelism: Type.Optional(
      IntOrString(
        'Parallelism specifies the maximum desired number of pods the job should run at any given time. The actual number of pods running in steady state will be less than this number when the work left to do is less than max parallelism. Not setting this value means no limit.',
      ),
    ),
    template: PodTemplateSpecSchema,
    completionPolicy: Type.Optional(BroadcastJobCompletionPolicySchema),
    paused: Type.Optional(Bool('Paused will pause the job.')),
    failurePolicy: Type.Optional(BroadcastJobFailurePolicySchema),
  },
  { description: 'BroadcastJobSpec defines the desired state of BroadcastJob' },
);
export type BroadcastJobSpec = Static<typeof BroadcastJobSpecSchema>;

export const BroadcastJobConditionSchema = Type.Object(
  {
    type: Type.Unsafe<BroadcastJobConditionType>({
      type: 'string',
      description: 'Type of job condition, Complete or Failed.',
    }),
    status: Str('Status of the condition, one of True, False, Unknown.'),
    lastProbeTime: Type.Optional(Time('Last time the condition was checked.')),
    lastTransitionTime: Type.Optional(Time('Last time the condition transit from one status to another.')),
    reason: Type.Optional(Str("(brief) reason for the condition's last transition.")),
    message: Type.Optional(Str('Human readable message indicating details about last transition.')),
  },
  { description: 'JobCondition describes current state of a job.' },
);
export type BroadcastJobCondition = Static<typeof BroadcastJobConditionSchema>;

/** The observed state of a BroadcastJob (the same at both versions). */
export const BroadcastJobStatusSchema = Type.Object(
  {
    conditions: Type.Optional(
      Type.Array(BroadcastJobConditionSchema, {
        description: "The latest available observations of an object's current state.",
      }),
    ),
    startTime: Type.Optional(
      Time(
        'Represents time when the job was acknowledged by the job controller. It is not guaranteed to be set in happens-before order across separate operations. It is represented in RFC3339 form and is in UTC.',
      ),
    ),
    completionTime: Type.Optional(
      Time(
        'Represents time when the job was completed. It is not guaranteed to be set in happens-before order across separate operations. It is represented in RFC3339 form and is in UTC.',
      ),
    ),
    active: Type.Optional(Int32('The number of actively running pods.')),
    succeeded: Type.Optional(Int32('The number of pods which reached phase Succeeded.')),
    failed: Type.Optional(Int32('The number of pods which reached phase Failed.')),
    desired: Type.Optional(
      Int32(
        'The desired number of pods, this is typically equal to the number of nodes satisfied to run pods.',
      ),
    ),
    phase: Type.Optional(
      Type.Unsafe<BroadcastJobPhase>({ type: 'string', description: 'The phase of the job.' }),
    ),
  },
  { description: 'BroadcastJobStatus defines the observed state of BroadcastJob' },
);
export type BroadcastJobStatus = Static<typeof BroadcastJobStatusSchema>;

/** BroadcastJob at v1beta1 (the storage version); v1alpha1 has the same schema. */
export const BroadcastJobSchema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(BroadcastJobSpecSchema),
  status: Type.Optional(BroadcastJobStatusSchema),
});
export type BroadcastJob = Static<typeof BroadcastJobSchema>;
