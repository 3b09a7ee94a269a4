import { type Static, Type } from '@sinclair/typebox';
import type { PersistentVolumeClaim, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { LabelSelectorSchema, typeMetaFields } from './common.ts';
import { Bool, Int32, Int64, IntOrString, Str, Time } from './primitives.ts';
import {
  InPlaceUpdateStrategySchema,
  LifecycleSchema,
  UpdatePriorityStrategySchema,
  UpdateScatterTermSchema,
} from './pub.ts';

/** A pod template kept as the API server stores it (core/v1 validates it in the webhook, not the CRD). */
const PodTemplateSpecSchema = Type.Unsafe<PodTemplateSpec>({
  description: 'Template describes the pods that will be created.',
  'x-kubernetes-preserve-unknown-fields': true,
});

const VolumeClaimTemplatesSchema = Type.Unsafe<PersistentVolumeClaim[]>({
  description:
    'VolumeClaimTemplates is a list of claims that pods are allowed to reference. Note that PVC will be deleted when its pod has been deleted.',
  'x-kubernetes-preserve-unknown-fields': true,
});

/** How pods are created and deleted. */
export const CloneSetScaleStrategySchema = Type.Object(
  {
    podsToDelete: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'PodsToDelete is the names of Pod should be deleted. Note that this list will be truncated for non-existing pod names.',
      }),
    ),
    maxUnavailable: Type.Optional(
      IntOrString(
        'The maximum number of pods that can be unavailable for scaled pods. MaxUnavailable works only when scaling up.',
      ),
    ),
    disablePVCReuse: Type.Optional(
      Bool('Indicate if cloneSet will reuse already existed pvc to rebuild a new pod'),
    ),
  },
  {
    description:
      'ScaleStrategy indicates the ScaleStrategy that will be employed to create and delete Pods in the CloneSet.',
  },
);
export type CloneSetScaleStrategy = Static<typeof CloneSetScaleStrategySchema>;

/** `ReCreate` (default), `InPlaceIfPossible`, `InPlaceOnly`; `OnDelete` exists but the webhook rejects it. */
export type CloneSetUpdateStrategyType = 'ReCreate' | 'InPlaceIfPossible' | 'InPlaceOnly' | 'OnDelete';

/** How pods move to a new revision. */
export const CloneSetUpdateStrategySchema = Type.Object(
  {
    type: Type.Optional(
      Type.Unsafe<CloneSetUpdateStrategyType>({
        type: 'string',
        description: 'Type indicates the type of the CloneSetUpdateStrategy. Default is ReCreate.',
      }),
    ),
    partition: Type.Optional(
      IntOrString(
        'Partition is the desired number of pods in old revisions: an absolute number or a percentage of desired pods (rounded up). Default value is 0.',
      ),
    ),
    maxUnavailable: Type.Optional(
      IntOrString(
        'The maximum number of pods that can be unavailable during update or scale: an absolute number or a percentage of desired pods (rounded up, or down when maxSurge > 0). Defaults to 20%.',
      ),
    ),
    maxSurge: Type.Optional(
      IntOrString(
        'The maximum number of pods that can be scheduled above the desired replicas during update or specified delete: an absolute number or a percentage (rounded up). Defaults to 0.',
      ),
    ),
    paused: Type.Optional(Bool('Paused indicates that the CloneSet is paused. Default value is false')),
    priorityStrategy: Type.Optional(UpdatePriorityStrategySchema),
    scatterStrategy: Type.Optional(
      Type.Array(UpdateScatterTermSchema, {
        description:
          'ScatterStrategy defines the scatter rules to make pods been scattered when update, so that pods with the same key-value are not updated in one batch.',
      }),
    ),
    inPlaceUpdateStrategy: Type.Optional(InPlaceUpdateStrategySchema),
  },
  {
    description:
      'UpdateStrategy indicates the UpdateStrategy that will be employed to update Pods in the CloneSet when a revision is made to Template.',
  },
);
export type CloneSetUpdateStrategy = Static<typeof CloneSetUpdateStrategySchema>;

/** The desired state of a CloneSet. */
export const CloneSetSpecSchema = Type.Object(
  {
    replicas: Type.Optional(
      Int32(
        'Replicas is the desired number of replicas of the given Template. If unspecified, defaults to 1.',
      ),
    ),
    selector: LabelSelectorSchema,
    template: PodTemplateSpecSchema,
    volumeClaimTemplates: Type.Optional(VolumeClaimTemplatesSchema),
    scaleStrategy: Type.Optional(CloneSetScaleStrategySchema),
    updateStrategy: Type.Optional(CloneSetUpdateStrategySchema),
    revisionHistoryLimit: Type.Optional(
      Int32(
        "RevisionHistoryLimit is the maximum number of revisions that will be maintained in the CloneSet's revision history. The default value is 10.",
      ),
    ),
    minReadySeconds: Type.Optional(
      Int32(
        'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0.',
      ),
    ),
    lifecycle: Type.Optional(LifecycleSchema),
    progressDeadlineSeconds: Type.Optional(
      Int32(
        'ProgressDeadlineSeconds specifies the maximum time for the CloneSet to reach available or paused state due to partitioning; unset means no Progressing condition.',
      ),
    ),
  },
  { description: 'CloneSetSpec defines the desired state of CloneSet' },
);
export type CloneSetSpec = Static<typeof CloneSetSpecSchema>;

/** The condition types and Progressing reasons a CloneSet reports. */
export type CloneSetConditionType = 'FailedScale' | 'FailedUpdate' | 'Progressing';

/** One condition of a CloneSet. */
export const CloneSetConditionSchema = Type.Object(
  {
    type: Type.Unsafe<CloneSetConditionType>({ type: 'string', description: 'Type of CloneSet condition.' }),
    status: Str('Status of the condition, one of True, False, Unknown.'),
    lastUpdateTime: Type.Optional(Time('Last time the condition is updated.')),
    lastTransitionTime: Type.Optional(
      Time('Last time the condition transitioned from one status to another.'),
    ),
    reason: Type.Optional(Str("The reason for the condition's last transition.")),
    message: Type.Optional(Str('A human readable message indicating details about the transition.')),
  },
  { description: 'CloneSetCondition describes the state of a CloneSet at a certain point.' },
);
export type CloneSetCondition = Static<typeof CloneSetConditionSchema>;

/** The observed state of a CloneSet. */
export const CloneSetStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(Int64('The most recent generation observed for this CloneSet.')),
    replicas: Int32('Replicas is the number of Pods created by the CloneSet controller.'),
    readyReplicas: Int32(
      'ReadyReplicas is the number of Pods created by the CloneSet controller that have a Ready Condition.',
    ),
    availableReplicas: Int32(
      'AvailableReplicas is the number of Pods created by the CloneSet controller that have a Ready Condition for at least minReadySeconds.',
    ),
    updatedReplicas: Int32(
      'UpdatedReplicas is the number of Pods created by the CloneSet controller from the CloneSet version indicated by updateRevision.',
    ),
    updatedReadyReplicas: Int32(
      'UpdatedReadyReplicas is the number of Pods created by the CloneSet controller from the CloneSet version indicated by updateRevision and have a Ready Condition.',
    ),
    updatedAvailableReplicas: Type.Optional(
      Int32(
        'UpdatedAvailableReplicas is the number of updated Pods that have a Ready Condition for at least minReadySeconds.',
      ),
    ),
    expectedUpdatedReplicas: Type.Optional(
      Int32('ExpectedUpdatedReplicas is the number of Pods that should be updated (replicas - partition).'),
    ),
    updateRevision: Type.Optional(
      Str('UpdateRevision, if not empty, indicates the latest revision of the CloneSet.'),
    ),
    currentRevision: Type.Optional(
      Str('currentRevision, if not empty, indicates the current revision version of the CloneSet.'),
    ),
    collisionCount: Type.Optional(
      Int32(
        'CollisionCount is the count of hash collisions for the CloneSet, used to name the newest ControllerRevision.',
      ),
    ),
    conditions: Type.Optional(
      Type.Array(CloneSetConditionSchema, {
        description: "Conditions represents the latest available observations of a CloneSet's current state.",
      }),
    ),
    labelSelector: Type.Optional(
      Str(
        'LabelSelector is label selectors for query over pods that should match the replica count used by HPA.',
      ),
    ),
  },
  { description: 'CloneSetStatus defines the observed state of CloneSet' },
);
export type CloneSetStatus = Static<typeof CloneSetStatusSchema>;

/** CloneSet: a set of identical pods updated in place or recreated. */
export const CloneSetSchema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(CloneSetSpecSchema),
  status: Type.Optional(CloneSetStatusSchema),
});
export type CloneSet = Static<typeof CloneSetSchema>;
