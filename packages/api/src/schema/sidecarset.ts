import { type Static, Type } from '@sinclair/typebox';
import type {
  Container,
  LocalObjectReference,
  ObjectFieldSelector,
  Volume,
} from 'kubernetes-types/core/v1.js';
import { labelSelectorFields, typeMetaFields } from './common.ts';
import { Bool, Int32, Int64, IntOrString, Str, StringMap } from './primitives.ts';
import { UpdatePriorityStrategySchema, UpdateScatterTermSchema } from './pub.ts';

/**
 * SidecarSet (`apps.kruise.io`, cluster-scoped): v1beta1, the storage version, and v1alpha1, served
 * and converted (v1alpha1 also has `namespace`, and keeps `customVersion` in the label
 * `apps.kruise.io/sidecarset-custom-version`).
 */

/** `BeforeAppContainer` (default for containers) or `AfterAppContainer`. */
export type PodInjectPolicyType = 'BeforeAppContainer' | 'AfterAppContainer';
/** `ColdUpgrade` (default) or `HotUpgrade`. */
export type SidecarContainerUpgradeType = 'ColdUpgrade' | 'HotUpgrade';
/** `enabled` or `disabled` (default). */
export type ShareVolumePolicyType = 'enabled' | 'disabled';
/** `RollingUpdate` (default) or `NotUpdate`. */
export type SidecarSetUpdateStrategyType = 'RollingUpdate' | 'NotUpdate';
/** `Retain` (default), `Overwrite` or `MergePatchJson`. */
export type SidecarSetPatchPolicyType = 'Retain' | 'Overwrite' | 'MergePatchJson';
/** `Always` (default) or `Partial`. */
export type SidecarSetInjectRevisionPolicy = 'Always' | 'Partial';

const ShareVolumePolicySchema = Type.Object({
  type: Type.Optional(Type.Unsafe<ShareVolumePolicyType>({ type: 'string' })),
});
export type ShareVolumePolicy = Static<typeof ShareVolumePolicySchema>;

const TransferEnvVarSchema = Type.Object({
  envName: Type.Optional(Str()),
  envNames: Type.Optional(Type.Array(Type.String())),
  sourceContainerName: Type.Optional(Str()),
  sourceContainerNameFrom: Type.Optional(
    Type.Object({
      fieldRef: Type.Optional(
        Type.Unsafe<ObjectFieldSelector>({
          type: 'object',
          description:
            "Selects a field of the pod: supports metadata.name, `metadata.labels['<KEY>']`, `metadata.annotations['<KEY>']`.",
          properties: { apiVersion: { type: 'string' }, fieldPath: { type: 'string' } },
          required: ['fieldPath'],
          'x-kubernetes-map-type': 'atomic',
        }),
      ),
    }),
  ),
});
export type TransferEnvVar = Static<typeof TransferEnvVarSchema>;

const ResourceExprSchema = (what: string) =>
  Type.Object({
    cpu: Type.Optional(Str(`CPU expression for calculating CPU ${what}`)),
    memory: Type.Optional(Str(`Memory expression for calculating memory ${what}`)),
  });

const ResourcesPolicySchema = Type.Object(
  {
    targetContainersMode: Type.Unsafe<'sum' | 'max'>({ type: 'string', enum: ['sum', 'max'] }),
    targetContainersNameRegex: Type.Optional(
      Type.String({
        default: '.*',
        description: 'TargetContainersNameRegex is the regex pattern to match target container names',
      }),
    ),
    resourcesExpr: Type.Object(
      {
        limits: Type.Optional(ResourceExprSchema('limits')),
        requests: Type.Optional(ResourceExprSchema('requests')),
      },
      { description: 'ResourcesExpr defines the expressions of the sidecar container resources' },
    ),
  },
  { description: 'ResourcesPolicy defines the sidecar container resources from the app containers' },
);
export type ResourcesPolicy = Static<typeof ResourcesPolicySchema>;

const SidecarContainerUpgradeStrategySchema = Type.Object({
  upgradeType: Type.Optional(Type.Unsafe<SidecarContainerUpgradeType>({ type: 'string' })),
  hotUpgradeEmptyImage: Type.Optional(
    Str('when HotUpgrade, HotUpgradeEmptyImage is used to complete the hot upgrading process'),
  ),
});
export type SidecarContainerUpgradeStrategy = Static<typeof SidecarContainerUpgradeStrategySchema>;

/** The fields a sidecar container has beside a core Container's. */
const sidecarExtraFields = {
  podInjectPolicy: Type.Optional(Type.Unsafe<PodInjectPolicyType>({ type: 'string' })),
  upgradeStrategy: Type.Optional(SidecarContainerUpgradeStrategySchema),
  shareVolumePolicy: Type.Optional(ShareVolumePolicySchema),
  shareVolumeDevicePolicy: Type.Optional(ShareVolumePolicySchema),
  transferEnv: Type.Optional(Type.Array(TransferEnvVarSchema)),
  resourcesPolicy: Type.Optional(ResourcesPolicySchema),
};

/** A sidecar container: a full core Container (kept as written) plus the sidecar fields. */
export type SidecarContainer = Container & {
  podInjectPolicy?: PodInjectPolicyType;
  upgradeStrategy?: SidecarContainerUpgradeStrategy;
  shareVolumePolicy?: ShareVolumePolicy;
  shareVolumeDevicePolicy?: ShareVolumePolicy;
  transferEnv?: TransferEnvVar[];
  resourcesPolicy?: ResourcesPolicy;
};

const SidecarContainerSchema = Type.Unsafe<SidecarContainer>({
  ...Type.Object(sidecarExtraFields),
  'x-kubernetes-preserve-unknown-fields': true,
});

const SidecarSetUpdateStrategySchema = Type.Object(
  {
    type: Type.Optional(Type.Unsafe<SidecarSetUpdateStrategyType>({ type: 'string' })),
    paused: Type.Optional(Bool('Paused indicates that the SidecarSet is paused to update matched pods')),
    selector: Type.Optional(
      Type.Object(labelSelectorFields, {
        description: 'If selector is not nil, this upgrade will only update the selected pods.',
      }),
    ),
    partition: Type.Optional(
      IntOrString('Partition is the desired number or percent of Pods in old revisions. Defaults to 0.'),
    ),
    maxUnavailable: Type.Optional(
      IntOrString(
        'The maximum number of SidecarSet pods that can be unavailable during the update. Defaults to 1.',
      ),
    ),
    priorityStrategy: Type.Optional(UpdatePriorityStrategySchema),
    scatterStrategy: Type.Optional(
      Type.Array(UpdateScatterTermSchema, {
        description:
          'ScatterStrategy defines the scatter rules to make pods been scattered when update, so that pods with the same key-value are not updated in one batch.',
      }),
    ),
  },
  { description: 'The sidecarset update strategy to use to replace existing pods with new ones.' },
);
export type SidecarSetUpdateStrategy = Static<typeof SidecarSetUpdateStrategySchema>;

const SidecarSetInjectionStrategySchema = Type.Object(
  {
    paused: Type.Optional(Bool('Paused indicates that SidecarSet will suspend injection into Pods')),
    revision: Type.Optional(
      Type.Object({
        customVersion: Type.Optional(Str()),
        revisionName: Type.Optional(Str()),
        policy: Type.Optional(
          Type.Unsafe<SidecarSetInjectRevisionPolicy>({
            type: 'string',
            default: 'Always',
            enum: ['Always', 'Partial'],
          }),
        ),
      }),
    ),
  },
  { description: 'InjectionStrategy describe the strategy when sidecarset is injected into pods' },
);
export type SidecarSetInjectionStrategy = Static<typeof SidecarSetInjectionStrategySchema>;

const SidecarSetPatchPodMetadataSchema = Type.Object({
  annotations: Type.Optional(StringMap('annotations')),
  patchPolicy: Type.Optional(Type.Unsafe<SidecarSetPatchPolicyType>({ type: 'string' })),
});
export type SidecarSetPatchPodMetadata = Static<typeof SidecarSetPatchPodMetadataSchema>;

const sharedSpecFields = {
  selector: Type.Optional(
    Type.Object(labelSelectorFields, {
      description: 'selector is a label query over pods that should be injected',
    }),
  ),
  namespaceSelector: Type.Optional(
    Type.Object(labelSelectorFields, {
      description:
        'NamespaceSelector select which namespaces to inject sidecar containers. If not specified, match pods in all namespaces(in cluster)',
    }),
  ),
  initContainers: Type.Optional(
    Type.Array(SidecarContainerSchema, {
      description: 'InitContainers is the list of init containers to be injected into the selected pod',
    }),
  ),
  containers: Type.Optional(
    Type.Array(SidecarContainerSchema, {
      description: 'Containers is the list of sidecar containers to be injected into the selected pod',
    }),
  ),
  volumes: Type.Optional(
    Type.Unsafe<Volume[]>({
      description: 'List of volumes that can be mounted by sidecar containers',
      'x-kubernetes-preserve-unknown-fields': true,
    }),
  ),
  updateStrategy: Type.Optional(SidecarSetUpdateStrategySchema),
  injectionStrategy: Type.Optional(SidecarSetInjectionStrategySchema),
  imagePullSecrets: Type.Optional(
    Type.Unsafe<LocalObjectReference[]>({
      type: 'array',
      description: 'List of the names of secrets required by pulling sidecar container images',
      items: {
        type: 'object',
        properties: { name: { type: 'string', default: '' } },
        'x-kubernetes-map-type': 'atomic',
      },
    }),
  ),
  revisionHistoryLimit: Type.Optional(
    Int32(
      'RevisionHistoryLimit indicates the maximum quantity of stored revisions about the SidecarSet. default value is 10',
    ),
  ),
  patchPodMetadata: Type.Optional(
    Type.Array(SidecarSetPatchPodMetadataSchema, {
      description: 'SidecarSet support to inject & in-place update metadata in pod.',
    }),
  ),
};

/** The desired state of a SidecarSet at v1beta1. */
export const SidecarSetSpecSchema = Type.Object(
  {
    ...sharedSpecFields,
    customVersion: Type.Optional(
      Str(
        'CustomVersion defines the custom version of the SidecarSet; it is passed to its ControllerRevision, and users can pin injection to it',
      ),
    ),
  },
  { description: 'SidecarSetSpec defines the desired state of SidecarSet' },
);
export type SidecarSetSpec = Static<typeof SidecarSetSpecSchema>;

/** The desired state at v1alpha1 (`namespace` becomes a namespaceSelector at v1beta1). */
export const SidecarSetSpecV1alpha1Schema = Type.Object(
  {
    ...sharedSpecFields,
    namespace: Type.Optional(Str('Namespace sidecarSet will only match the pods in the namespace')),
  },
  { description: 'SidecarSetSpec defines the desired state of SidecarSet' },
);
export type SidecarSetSpecV1alpha1 = Static<typeof SidecarSetSpecV1alpha1Schema>;

/** The observed state of a SidecarSet (both versions). */
export const SidecarSetStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(
      Int64('observedGeneration is the most recent generation observed for this SidecarSet.'),
    ),
    matchedPods: Int32(
      "matchedPods is the number of Pods whose labels are matched with this SidecarSet's selector and are created after sidecarset creates",
    ),
    updatedPods: Int32(
      "updatedPods is the number of matched Pods that are injected with the latest SidecarSet's containers",
    ),
    readyPods: Int32('readyPods is the number of matched Pods that have a ready condition'),
    updatedReadyPods: Type.Optional(
      Int32('updatedReadyPods is the number of matched pods that updated and ready'),
    ),
    latestRevision: Type.Optional(
      Str('LatestRevision, if not empty, indicates the latest controllerRevision name of the SidecarSet.'),
    ),
    collisionCount: Type.Optional(
      Int32('CollisionCount is the count of hash collisions for the SidecarSet.'),
    ),
    missingSidecarPods: Type.Optional(
      Int32(
        'missingSidecarPods is the number of active pods the SidecarSet selects, created after it, that lack its sidecars (created while the pod webhook was unreachable). Not in upstream.',
      ),
    ),
  },
  { description: 'SidecarSetStatus defines the observed state of SidecarSet' },
);
export type SidecarSetStatus = Static<typeof SidecarSetStatusSchema>;

/** SidecarSet at v1beta1 (the storage version). */
export const SidecarSetSchema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(SidecarSetSpecSchema),
  status: Type.Optional(SidecarSetStatusSchema),
});
export type SidecarSet = Static<typeof SidecarSetSchema>;

/** SidecarSet at v1alpha1 (served, converted by kruise-manager). */
export const SidecarSetV1alpha1Schema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(SidecarSetSpecV1alpha1Schema),
  status: Type.Optional(SidecarSetStatusSchema),
});
export type SidecarSetV1alpha1 = Static<typeof SidecarSetV1alpha1Schema>;
