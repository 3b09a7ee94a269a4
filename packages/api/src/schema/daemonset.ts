import { type Static, Type } from '@sinclair/typebox';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { labelSelectorFields, typeMetaFields } from './common.ts';
import { Bool, Int32, Int64, IntOrString, Str, Time } from './primitives.ts';
import { LifecycleSchema } from './pub.ts';

/**
 * Advanced DaemonSet (`apps.kruise.io` kind DaemonSet): v1beta1, the storage version, and
 * v1alpha1, served and converted (it has the deprecated `Surging` rolling update type, the
 * `daemonSetHash` status field and no `scaleStrategy`).
 */

/** `RollingUpdate` (default) or `OnDelete`. */
export type DaemonSetUpdateStrategyType = 'RollingUpdate' | 'OnDelete';

/** `Standard` (default) or `InPlaceIfPossible`; v1alpha1 also accepts the deprecated `Surging`. */
export type DaemonSetRollingUpdateType = 'Standard' | 'InPlaceIfPossible' | 'Surging';

const PodTemplateSpecSchema = Type.Unsafe<PodTemplateSpec>({
  description:
    "An object that describes the pod that will be created. The DaemonSet will create exactly one copy of this pod on every node that matches the template's node selector (or on every node if no node selector is specified). More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template",
  'x-kubernetes-preserve-unknown-fields': true,
});

const RollingUpdateDaemonSetSchema = Type.Object(
  {
    rollingUpdateType: Type.Optional(
      Type.Unsafe<DaemonSetRollingUpdateType>({
        type: 'string',
        description: 'Type is to specify which kind of rollingUpdate.',
      }),
    ),
    maxUnavailable: Type.Optional(
      IntOrString(
        'The maximum number of DaemonSet pods that can be unavailable during the update. Value can be an absolute number (ex: 5) or a percentage of total number of DaemonSet pods at the start of the update (ex: 10%). Absolute number is calculated from percentage by rounding up. This cannot be 0 if MaxSurge is 0 Default value is 1.',
      ),
    ),
    maxSurge: Type.Optional(
      IntOrString(
        'The maximum number of nodes with an existing available DaemonSet pod that can have an updated DaemonSet pod during during an update. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). This can not be 0 if MaxUnavailable is 0. Absolute number is calculated from percentage by rounding up to a minimum of 1. Default value is 0.',
      ),
    ),
    selector: Type.Optional(
      Type.Object(labelSelectorFields, {
        description:
          "A label query over nodes that are managed by the daemon set RollingUpdate. Must match in order to be controlled. It must match the node's labels.",
      }),
    ),
    partition: Type.Optional(
      IntOrString(
        'The number of DaemonSet pods remained to be old version. Default value is 0. Maximum value is status.DesiredNumberScheduled, which means no pod will be updated.',
      ),
    ),
    paused: Type.Optional(
      Bool('Indicates that the daemon set is paused and will not be processed by the daemon set controller.'),
    ),
  },
  { description: 'Spec to control the desired behavior of daemon set rolling update.' },
);
export type RollingUpdateDaemonSet = Static<typeof RollingUpdateDaemonSetSchema>;

const UpdateStrategySchema = Type.Object(
  {
    type: Type.Optional(
      Type.Unsafe<DaemonSetUpdateStrategyType>({
        type: 'string',
        description:
          'Type of daemon set update. Can be "RollingUpdate" or "OnDelete". Default is RollingUpdate.',
      }),
    ),
    rollingUpdate: Type.Optional(RollingUpdateDaemonSetSchema),
  },
  { description: 'An update strategy to replace existing DaemonSet pods with new pods.' },
);
export type DaemonSetUpdateStrategy = Static<typeof UpdateStrategySchema>;

const ScaleStrategySchema = Type.Object(
  {
    partitionedScaling: Type.Optional(
      Bool(
        'If set to true, and the partition is set, only (desired - updated - partition) daemon pods will be created. Otherwise daemon pods will be created on every node that need to start a daemon pod. Default is false.',
      ),
    ),
  },
  {
    description:
      'ScaleStrategy indicates the DaemonSetScaleStrategy that will be employed to create Pods in the DaemonSet.',
  },
);
export type DaemonSetScaleStrategy = Static<typeof ScaleStrategySchema>;

/** The spec fields both versions have. */
const sharedSpecFields = {
  selector: Type.Object(labelSelectorFields, {
    description:
      "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
  }),
  template: PodTemplateSpecSchema,
  updateStrategy: Type.Optional(UpdateStrategySchema),
  minReadySeconds: Type.Optional(
    Int32(
      'The minimum number of seconds for which a newly created DaemonSet pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0 (pod will be considered available as soon as it is ready).',
    ),
  ),
  burstReplicas: Type.Optional(
    IntOrString(
      'BurstReplicas is a rate limiter for booting pods on a lot of pods. The default value is 250',
    ),
  ),
  revisionHistoryLimit: Type.Optional(
    Int32(
      'The number of old history to retain to allow rollback. This is a pointer to distinguish between explicit zero and not specified. Defaults to 10.',
    ),
  ),
  lifecycle: Type.Optional(
    Type.Object(LifecycleSchema.properties, {
      description:
        'Lifecycle defines the lifecycle hooks for Pods pre-delete, in-place update. Currently, we only support pre-delete hook for Advanced DaemonSet.',
    }),
  ),
};

/** The desired state of an Advanced DaemonSet at v1beta1. */
export const DaemonSetSpecSchema = Type.Object(
  { ...sharedSpecFields, scaleStrategy: Type.Optional(ScaleStrategySchema) },
  { description: 'DaemonSetSpec defines the desired state of DaemonSet' },
);
export type DaemonSetSpec = Static<typeof DaemonSetSpecSchema>;

/** The desired state at v1alpha1 (partitioned scaling is the `daemonset.kruise.io/progressive-create-pod` annotation there). */
export const DaemonSetSpecV1alpha1Schema = Type.Object(sharedSpecFields, {
  description: 'DaemonSetSpec defines the desired state of DaemonSet',
});
export type DaemonSetSpecV1alpha1 = Static<typeof DaemonSetSpecV1alpha1Schema>;

const DaemonSetConditionSchema = Type.Object(
  {
    type: Str('Type of DaemonSet condition.'),
    status: Str('Status of the condition, one of True, False, Unknown.'),
    lastTransitionTime: Type.Optional(
      Time('Last time the condition transitioned from one status to another.'),
    ),
    reason: Type.Optional(Str("The reason for the condition's last transition.")),
    message: Type.Optional(Str('A human readable message indicating details about the transition.')),
  },
  { description: 'DaemonSetCondition describes the state of a DaemonSet at a certain point.' },
);
export type DaemonSetCondition = Static<typeof DaemonSetConditionSchema>;

/** The status fields both versions have. */
const sharedStatusFields = {
  currentNumberScheduled: Int32(
    'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
  ),
  numberMisscheduled: Int32(
    'The number of nodes that are running the daemon pod, but are not supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
  ),
  desiredNumberScheduled: Int32(
    'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
  ),
  numberReady: Int32(
    'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
  ),
  observedGeneration: Type.Optional(
    Int64('The most recent generation observed by the daemon set controller.'),
  ),
  updatedNumberScheduled: Int32('The total number of nodes that are running updated daemon pod'),
  numberAvailable: Type.Optional(
    Int32(
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
    ),
  ),
  numberUnavailable: Type.Optional(
    Int32(
      'The number of nodes that should be running the daemon pod and have none of the daemon pod running and available (ready for at least spec.minReadySeconds)',
    ),
  ),
  collisionCount: Type.Optional(
    Int32(
      'Count of hash collisions for the DaemonSet. The DaemonSet controller uses this field as a collision avoidance mechanism when it needs to create the name for the newest ControllerRevision.',
    ),
  ),
  conditions: Type.Optional(
    Type.Array(DaemonSetConditionSchema, {
      description: "Represents the latest available observations of a DaemonSet's current state.",
    }),
  ),
};

/** The observed state at v1beta1. */
export const DaemonSetStatusSchema = Type.Object(
  {
    ...sharedStatusFields,
    updateRevision: Type.Optional(
      Str(
        'UpdateRevision is the controller-revision-hash, which represents the latest version of the DaemonSet.',
      ),
    ),
  },
  { description: 'DaemonSetStatus defines the observed state of DaemonSet' },
);
export type DaemonSetStatus = Static<typeof DaemonSetStatusSchema>;

/** The observed state at v1alpha1 (`daemonSetHash` is v1beta1's `updateRevision`). */
export const DaemonSetStatusV1alpha1Schema = Type.Object(
  {
    ...sharedStatusFields,
    daemonSetHash: Type.Optional(
      Str(
        'DaemonSetHash is the controller-revision-hash, which represents the latest version of the DaemonSet.',
      ),
    ),
  },
  { description: 'DaemonSetStatus defines the observed state of DaemonSet' },
);
export type DaemonSetStatusV1alpha1 = Static<typeof DaemonSetStatusV1alpha1Schema>;

/** Advanced DaemonSet at v1beta1 (the storage version). */
export const DaemonSetSchema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(DaemonSetSpecSchema),
  status: Type.Optional(DaemonSetStatusSchema),
});
export type DaemonSet = Static<typeof DaemonSetSchema>;

/** Advanced DaemonSet at v1alpha1 (served, converted). */
export const DaemonSetV1alpha1Schema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(DaemonSetSpecV1alpha1Schema),
  status: Type.Optional(DaemonSetStatusV1alpha1Schema),
});
export type DaemonSetV1alpha1 = Static<typeof DaemonSetV1alpha1Schema>;
