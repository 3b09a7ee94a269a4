import { type Static, Type } from '@sinclair/typebox';
import type { PersistentVolumeClaim, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { labelSelectorFields, typeMetaFields } from './common.ts';
import { Bool, Int32, Int64, IntOrString, Str, Time } from './primitives.ts';
import { InPlaceUpdateStrategySchema, LifecycleSchema, UpdatePriorityStrategySchema } from './pub.ts';

/**
 * Advanced StatefulSet (`apps.kruise.io` kind StatefulSet): v1beta1, the storage version, and
 * v1alpha1, served and converted (its fields are a subset of v1beta1's).
 */

/** The pod template, kept as the API server stores it (the webhook validates it as core/v1 does). */
const PodTemplateSpecSchema = Type.Unsafe<PodTemplateSpec>({
  description:
    'template is the object that describes the pod that will be created if insufficient replicas are detected. Each pod stamped out by the StatefulSet will fulfill this Template, but have a unique identity from the rest of the StatefulSet.',
  'x-kubernetes-preserve-unknown-fields': true,
});

const VolumeClaimTemplatesSchema = Type.Unsafe<PersistentVolumeClaim[]>({
  description:
    'volumeClaimTemplates is a list of claims that pods are allowed to reference. The StatefulSet controller is responsible for mapping network identities to claims in a way that maintains the identity of a pod. Every claim in this list must have at least one matching (by name) volumeMount in one container in the template. A claim in this list takes precedence over any volumes in the template, with the same name.',
  'x-kubernetes-preserve-unknown-fields': true,
});

/** `ReCreate` (default), `InPlaceIfPossible`, `InPlaceOnly`. */
export type PodUpdateStrategyType = 'ReCreate' | 'InPlaceIfPossible' | 'InPlaceOnly';

/** `OrderedReady` (default) or `Parallel`. */
export type PodManagementPolicyType = 'OrderedReady' | 'Parallel';

/** `RollingUpdate` (default) or `OnDelete`. */
export type StatefulSetUpdateStrategyType = 'RollingUpdate' | 'OnDelete';

/** `Retain` or `Delete`. */
export type PersistentVolumeClaimRetentionPolicyType = 'Retain' | 'Delete';

/** `OnPodRollingUpdate` or `OnDelete`. */
export type VolumeClaimUpdateStrategyType = 'OnPodRollingUpdate' | 'OnDelete';

const UnorderedUpdateStrategySchema = Type.Object(
  { priorityStrategy: Type.Optional(UpdatePriorityStrategySchema) },
  {
    description:
      'UnorderedUpdate contains strategies for non-ordered update. If it is not nil, pods will be updated with non-ordered sequence. Noted that UnorderedUpdate can only be allowed to work with Parallel podManagementPolicy',
  },
);
export type UnorderedUpdateStrategy = Static<typeof UnorderedUpdateStrategySchema>;

/** The rolling update parameters, the same at both versions. */
export const RollingUpdateStatefulSetStrategySchema = Type.Object(
  {
    partition: Type.Optional(
      Int32(
        'Partition indicates the number of pods the StatefulSet should be partitioned by default. It means controller will update $(replicas - partition) number of pod. Default value is 0.',
      ),
    ),
    maxUnavailable: Type.Optional(
      IntOrString(
        'The maximum number of pods that can be unavailable during the update. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Absolute number is calculated from percentage by rounding down. Also, maxUnavailable can just be allowed to work with Parallel podManagementPolicy. Defaults to 1.',
      ),
    ),
    podUpdatePolicy: Type.Optional(
      Type.Unsafe<PodUpdateStrategyType>({
        type: 'string',
        description: 'PodUpdatePolicy indicates how pods should be updated Default value is "ReCreate"',
      }),
    ),
    paused: Type.Optional(Bool('Paused indicates that the StatefulSet is paused. Default value is false')),
    unorderedUpdate: Type.Optional(UnorderedUpdateStrategySchema),
    inPlaceUpdateStrategy: Type.Optional(InPlaceUpdateStrategySchema),
    minReadySeconds: Type.Optional(
      Int32(
        "MinReadySeconds indicates how long will the pod be considered ready after it's updated. MinReadySeconds works with both OrderedReady and Parallel podManagementPolicy. It affects the pod scale up speed when the podManagementPolicy is set to be OrderedReady. Combined with MaxUnavailable, it affects the pod update speed regardless of podManagementPolicy. Default value is 0, max is 300.",
      ),
    ),
  },
  {
    description:
      'RollingUpdate is used to communicate parameters when Type is RollingUpdateStatefulSetStrategyType.',
  },
);
export type RollingUpdateStatefulSetStrategy = Static<typeof RollingUpdateStatefulSetStrategySchema>;

const UpdateStrategySchema = Type.Object(
  {
    type: Type.Optional(
      Type.Unsafe<StatefulSetUpdateStrategyType>({
        type: 'string',
        description: 'Type indicates the type of the StatefulSetUpdateStrategy. Default is RollingUpdate.',
      }),
    ),
    rollingUpdate: Type.Optional(RollingUpdateStatefulSetStrategySchema),
  },
  {
    description:
      'updateStrategy indicates the StatefulSetUpdateStrategy that will be employed to update Pods in the StatefulSet when a revision is made to Template.',
  },
);
export type StatefulSetUpdateStrategy = Static<typeof UpdateStrategySchema>;

/** The fields both versions have. */
const sharedSpecFields = {
  replicas: Type.Optional(
    Int32(
      'replicas is the desired number of replicas of the given Template. These are replicas in the sense that they are instantiations of the same Template, but individual replicas also have a consistent identity. If unspecified, defaults to 1.',
    ),
  ),
  selector: Type.Object(labelSelectorFields, {
    description:
      "selector is a label query over pods that should match the replica count. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
  }),
  template: PodTemplateSpecSchema,
  volumeClaimTemplates: Type.Optional(VolumeClaimTemplatesSchema),
  serviceName: Type.Optional(
    Str(
      'serviceName is the name of the service that governs this StatefulSet. This service must exist before the StatefulSet, and is responsible for the network identity of the set. Pods get DNS/hostnames that follow the pattern: pod-specific-string.serviceName.default.svc.cluster.local where "pod-specific-string" is managed by the StatefulSet controller.',
    ),
  ),
  podManagementPolicy: Type.Optional(
    Type.Unsafe<PodManagementPolicyType>({
      type: 'string',
      description:
        'podManagementPolicy controls how pods are created during initial scale up, when replacing pods on nodes, or when scaling down. The default policy is `OrderedReady`, where pods are created in increasing order (pod-0, then pod-1, etc) and the controller will wait until each pod is ready before continuing. When scaling down, the pods are removed in the opposite order. The alternative policy is `Parallel` which will create pods in parallel to match the desired scale without waiting, and on scale down will delete all pods at once.',
    }),
  ),
  updateStrategy: Type.Optional(UpdateStrategySchema),
  revisionHistoryLimit: Type.Optional(
    Int32(
      "revisionHistoryLimit is the maximum number of revisions that will be maintained in the StatefulSet's revision history. The revision history consists of all revisions not represented by a currently applied StatefulSetSpec version. The default value is 10.",
    ),
  ),
};

const VolumeClaimUpdateStrategySchema = Type.Object(
  {
    type: Type.Optional(
      Type.Unsafe<VolumeClaimUpdateStrategyType>({
        type: 'string',
        description:
          'Type specifies the type of update strategy, possible values include: OnPodRollingUpdateVolumeClaimUpdateStrategyType: Apply the update strategy during pod rolling updates. OnPVCDeleteVolumeClaimUpdateStrategyType: Apply the update strategy when a PersistentVolumeClaim is deleted.',
      }),
    ),
  },
  {
    description:
      'VolumeClaimUpdateStrategy specifies the strategy for updating VolumeClaimTemplates within a StatefulSet. This field is currently only effective if the StatefulSetAutoResizePVCGate is enabled.',
  },
);
export type VolumeClaimUpdateStrategy = Static<typeof VolumeClaimUpdateStrategySchema>;

const StatefulSetScaleStrategySchema = Type.Object(
  {
    maxUnavailable: Type.Optional(
      IntOrString(
        'The maximum number of pods that can be unavailable during scaling. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Absolute number is calculated from percentage by rounding down. It can just be allowed to work with Parallel podManagementPolicy.',
      ),
    ),
  },
  {
    description:
      'scaleStrategy indicates the StatefulSetScaleStrategy that will be employed to scale Pods in the StatefulSet.',
  },
);
export type StatefulSetScaleStrategy = Static<typeof StatefulSetScaleStrategySchema>;

const RetentionPolicySchema = Type.Object(
  {
    whenDeleted: Type.Optional(
      Type.Unsafe<PersistentVolumeClaimRetentionPolicyType>({
        type: 'string',
        description:
          'WhenDeleted specifies what happens to PVCs created from StatefulSet VolumeClaimTemplates when the StatefulSet is deleted. The default policy of `Retain` causes PVCs to not be affected by StatefulSet deletion. The `Delete` policy causes those PVCs to be deleted.',
      }),
    ),
    whenScaled: Type.Optional(
      Type.Unsafe<PersistentVolumeClaimRetentionPolicyType>({
        type: 'string',
        description:
          'WhenScaled specifies what happens to PVCs created from StatefulSet VolumeClaimTemplates when the StatefulSet is scaled down. The default policy of `Retain` causes PVCs to not be affected by a scaledown. The `Delete` policy causes the associated PVCs for any excess pods above the replica count to be deleted.',
      }),
    ),
  },
  {
    description:
      'PersistentVolumeClaimRetentionPolicy describes the policy used for PVCs created from the StatefulSet VolumeClaimTemplates. This requires the StatefulSetAutoDeletePVC feature gate to be enabled, which is alpha.',
  },
);
export type StatefulSetPersistentVolumeClaimRetentionPolicy = Static<typeof RetentionPolicySchema>;

const OrdinalsSchema = Type.Object(
  {
    start: Type.Optional(
      Int32(
        "start is the number representing the first replica's index. It may be used to number replicas from an alternate index (eg: 1-indexed) over the default 0-indexed names, or to orchestrate progressive movement of replicas from one StatefulSet to another. If set, replica indices will be in the range: [.spec.ordinals.start, .spec.ordinals.start + .spec.replicas). If unset, defaults to 0. Replica indices will be in the range: [0, .spec.replicas).",
      ),
    ),
  },
  {
    description:
      'ordinals controls the numbering of replica indices in a StatefulSet. The default ordinals behavior assigns a "0" index to the first replica and increments the index by one for each additional replica requested. Using the ordinals field requires the StatefulSetStartOrdinal feature gate to be enabled, which is beta.',
  },
);
export type StatefulSetOrdinals = Static<typeof OrdinalsSchema>;

/** The desired state of an Advanced StatefulSet at v1beta1. */
export const StatefulSetSpecSchema = Type.Object(
  {
    ...sharedSpecFields,
    volumeClaimUpdateStrategy: Type.Optional(VolumeClaimUpdateStrategySchema),
    reserveOrdinals: Type.Optional(
      Type.Array(IntOrString(), {
        description:
          'reserveOrdinals controls the ordinal numbers that should be reserved, and the replicas will always be the expectation number of running Pods. For a sts with replicas=3 and its Pods in [0, 1, 2]: If you want to migrate Pod-1 and reserve this ordinal, just set spec.reserveOrdinal to [1]. Then controller will delete Pod-1 and create Pod-3 (existing Pods will be [0, 2, 3]). If you just want to delete Pod-1, you should set spec.reserveOrdinal to [1] and spec.replicas to 2. Then controller will delete Pod-1 (existing Pods will be [0, 2]). You can also use ranges along with numbers, such as [1, 3-5], which is a shortcut for [1, 3, 4, 5].',
      }),
    ),
    lifecycle: Type.Optional(LifecycleSchema),
    scaleStrategy: Type.Optional(StatefulSetScaleStrategySchema),
    persistentVolumeClaimRetentionPolicy: Type.Optional(RetentionPolicySchema),
    ordinals: Type.Optional(OrdinalsSchema),
  },
  { description: 'StatefulSetSpec defines the desired state of StatefulSet' },
);
export type StatefulSetSpec = Static<typeof StatefulSetSpecSchema>;

/** The desired state at v1alpha1: the fields v1beta1 has in common with it. */
export const StatefulSetSpecV1alpha1Schema = Type.Object(sharedSpecFields, {
  description: 'StatefulSetSpec defines the desired state of StatefulSet',
});
export type StatefulSetSpecV1alpha1 = Static<typeof StatefulSetSpecV1alpha1Schema>;

/** `FailedCreatePod`, `FailedUpdatePod` (and any condition type a user or tool writes). */
export type StatefulSetConditionType = 'FailedCreatePod' | 'FailedUpdatePod' | (string & {});

export const StatefulSetConditionSchema = Type.Object(
  {
    type: Type.Unsafe<StatefulSetConditionType>({
      type: 'string',
      description: 'Type of statefulset condition.',
    }),
    status: Str('Status of the condition, one of True, False, Unknown.'),
    lastTransitionTime: Type.Optional(
      Time('Last time the condition transitioned from one status to another.'),
    ),
    reason: Type.Optional(Str("The reason for the condition's last transition.")),
    message: Type.Optional(Str('A human readable message indicating details about the transition.')),
  },
  { description: 'StatefulSetCondition describes the state of a statefulset at a certain point.' },
);
export type StatefulSetCondition = Static<typeof StatefulSetConditionSchema>;

const VolumeClaimStatusSchema = Type.Object(
  {
    volumeClaimName: Str(
      'VolumeClaimName is the name of the volume claim. This is a unique identifier used to reference a specific volume claim.',
    ),
    compatibleReplicas: Int32(
      'CompatibleReplicas is the number of replicas currently compatible with the volume claim. It indicates how many replicas can function properly, being compatible with this volume claim. Compatibility is determined by whether the PVC spec storage requests are greater than or equal to the template spec storage requests',
    ),
    compatibleReadyReplicas: Int32(
      'CompatibleReadyReplicas is the number of replicas that are both ready and compatible with the volume claim. It highlights that these replicas are not only compatible but also ready to be put into service immediately. Compatibility is determined by whether the pvc spec storage requests are greater than or equal to the template spec storage requests The "ready" status is determined by whether the PVC status capacity is greater than or equal to the PVC spec storage requests.',
    ),
  },
  {
    description:
      'VolumeClaimStatus describes the status of a volume claim template. It provides details about the compatibility and readiness of the volume claim.',
  },
);
export type VolumeClaimStatus = Static<typeof VolumeClaimStatusSchema>;

/** The status fields both versions have. */
const sharedStatusFields = {
  observedGeneration: Type.Optional(
    Int64(
      "observedGeneration is the most recent generation observed for this StatefulSet. It corresponds to the StatefulSet's generation, which is updated on mutation by the API Server.",
    ),
  ),
  replicas: Int32('replicas is the number of Pods created by the StatefulSet controller.'),
  readyReplicas: Int32(
    'readyReplicas is the number of Pods created by the StatefulSet controller that have a Ready Condition.',
  ),
  availableReplicas: Int32(
    'AvailableReplicas is the number of Pods created by the StatefulSet controller that have been ready for minReadySeconds.',
  ),
  currentReplicas: Int32(
    'currentReplicas is the number of Pods created by the StatefulSet controller from the StatefulSet version indicated by currentRevision.',
  ),
  updatedReplicas: Int32(
    'updatedReplicas is the number of Pods created by the StatefulSet controller from the StatefulSet version indicated by updateRevision.',
  ),
  currentRevision: Type.Optional(
    Str(
      'currentRevision, if not empty, indicates the version of the StatefulSet used to generate Pods in the sequence [0,currentReplicas).',
    ),
  ),
  updateRevision: Type.Optional(
    Str(
      'updateRevision, if not empty, indicates the version of the StatefulSet used to generate Pods in the sequence [replicas-updatedReplicas,replicas)',
    ),
  ),
  collisionCount: Type.Optional(
    Int32(
      'collisionCount is the count of hash collisions for the StatefulSet. The StatefulSet controller uses this field as a collision avoidance mechanism when it needs to create the name for the newest ControllerRevision.',
    ),
  ),
  conditions: Type.Optional(
    Type.Array(StatefulSetConditionSchema, {
      description: "Represents the latest available observations of a statefulset's current state.",
    }),
  ),
  labelSelector: Type.Optional(
    Str(
      'LabelSelector is label selectors for query over pods that should match the replica count used by HPA.',
    ),
  ),
};

/** The observed state at v1beta1. */
export const StatefulSetStatusSchema = Type.Object(
  {
    ...sharedStatusFields,
    updatedReadyReplicas: Type.Optional(
      Int32(
        'updatedReadyReplicas is the number of updated Pods created by the StatefulSet controller that have a Ready Condition.',
      ),
    ),
    updatedAvailableReplicas: Type.Optional(
      Int32(
        'updatedAvailableReplicas is the number of updated Pods created by the StatefulSet controller that have a Ready condition for atleast minReadySeconds.',
      ),
    ),
    volumeClaims: Type.Optional(
      Type.Array(VolumeClaimStatusSchema, {
        description:
          'VolumeClaims represents the status of compatibility between existing PVCs and their respective templates. It tracks whether the PersistentVolumeClaims have been updated to match any changes made to the volumeClaimTemplates, ensuring synchronization between the defined templates and the actual PersistentVolumeClaims in use.',
      }),
    ),
  },
  { description: 'StatefulSetStatus defines the observed state of StatefulSet' },
);
export type StatefulSetStatus = Static<typeof StatefulSetStatusSchema>;

/** The observed state at v1alpha1. */
export const StatefulSetStatusV1alpha1Schema = Type.Object(sharedStatusFields, {
  description: 'StatefulSetStatus defines the observed state of StatefulSet',
});
export type StatefulSetStatusV1alpha1 = Static<typeof StatefulSetStatusV1alpha1Schema>;

/** Advanced StatefulSet at v1beta1 (the storage version). */
export const StatefulSetSchema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(StatefulSetSpecSchema),
  status: Type.Optional(StatefulSetStatusSchema),
});
export type StatefulSet = Static<typeof StatefulSetSchema>;

/** Advanced StatefulSet at v1alpha1 (served, converted). */
export const StatefulSetV1alpha1Schema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(StatefulSetSpecV1alpha1Schema),
  status: Type.Optional(StatefulSetStatusV1alpha1Schema),
});
export type StatefulSetV1alpha1 = Static<typeof StatefulSetV1alpha1Schema>;
