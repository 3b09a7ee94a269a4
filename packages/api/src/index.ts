/**
 * Kruise's API as the manager and daemon use it at run time: types (erased), where each kind is
 * served, well-known keys, defaults and feature gates. The Kubernetes- and Go-compatible
 * computations it builds on are in `@kruise/kube-compat`. The TypeBox schemas and CRD rendering
 * live behind `@kruise/api/schemas`, so loading this entry does not load TypeBox.
 */
export * from './conversion-webhook.ts';
export * from './defaults.ts';
export * from './env-from-metadata-hash.ts';
export * from './feature-gates.ts';
export * from './group.ts';
export * from './image-name-tag.ts';
export * from './keys.ts';
export * from './kinds.ts';
export * from './parallelism.ts';
export * from './pod-defaults.ts';
export * from './pub-budget.ts';
export type {
  AdvancedCronJob,
  AdvancedCronJobSpec,
  AdvancedCronJobStatus,
  BroadcastJobTemplateSpec,
  ConcurrencyPolicy,
  CronJobTemplate,
  ImageListPullJobTemplateSpec,
  TemplateKind,
} from './schema/advancedcronjob.ts';
export type {
  BroadcastJob,
  BroadcastJobCompletionPolicy,
  BroadcastJobCompletionPolicyType,
  BroadcastJobCondition,
  BroadcastJobConditionType,
  BroadcastJobFailurePolicy,
  BroadcastJobFailurePolicyType,
  BroadcastJobPhase,
  BroadcastJobSpec,
  BroadcastJobStatus,
} from './schema/broadcastjob.ts';
export type {
  CloneSet,
  CloneSetCondition,
  CloneSetConditionType,
  CloneSetScaleStrategy,
  CloneSetSpec,
  CloneSetStatus,
  CloneSetUpdateStrategy,
  CloneSetUpdateStrategyType,
} from './schema/cloneset.ts';
export type {
  ContainerPort,
  LabelSelector,
  LabelSelectorRequirement,
  ObjectMeta,
  ObjectReference,
  OwnerReference,
  ProbeHandler,
  PullPolicy,
  SandboxConfig,
} from './schema/common.ts';
export type {
  ContainerRecreateRequest,
  ContainerRecreateRequestContainer,
  ContainerRecreateRequestContainerContext,
  ContainerRecreateRequestPhase,
  ContainerRecreateRequestSpec,
  ContainerRecreateRequestStatus,
  ContainerRecreateRequestStrategy,
  ContainerRecreateRequestSyncContainerStatus,
  ContainerRecreateState,
} from './schema/containerrecreaterequest.ts';
export type {
  DaemonSet,
  DaemonSetCondition,
  DaemonSetRollingUpdateType,
  DaemonSetScaleStrategy,
  DaemonSetSpec,
  DaemonSetSpecV1alpha1,
  DaemonSetStatus,
  DaemonSetStatusV1alpha1,
  DaemonSetUpdateStrategy,
  DaemonSetUpdateStrategyType,
  DaemonSetV1alpha1,
  RollingUpdateDaemonSet,
} from './schema/daemonset.ts';
export type {
  FailedImageStatus,
  ImageListPullJob,
  ImageListPullJobSpec,
  ImageListPullJobStatus,
} from './schema/imagelistpulljob.ts';
export type {
  CompletionPolicy,
  ImagePullJob,
  ImagePullJobNodeSelector,
  ImagePullJobPodSelector,
  ImagePullJobSpec,
  ImagePullJobStatus,
  ImagePullJobTemplate,
} from './schema/imagepulljob.ts';
export type {
  ImagePullPhase,
  ImageSpec,
  ImageStatus,
  ImageTagPullPolicy,
  ImageTagSpec,
  ImageTagStatus,
  NodeImage,
  NodeImageSpec,
  NodeImageStatus,
  ReferenceObject,
} from './schema/nodeimage.ts';
export type {
  PodUnavailableBudget,
  PodUnavailableBudgetSpec,
  PodUnavailableBudgetStatus,
  TargetReference,
} from './schema/podunavailablebudget.ts';
export type {
  InPlaceUpdateStrategy,
  Lifecycle,
  LifecycleHook,
  UpdatePriorityOrderTerm,
  UpdatePriorityStrategy,
  UpdatePriorityWeightTerm,
  UpdateScatterTerm,
} from './schema/pub.ts';
export type {
  PodInjectPolicyType,
  ResourcesPolicy,
  ShareVolumePolicy,
  ShareVolumePolicyType,
  SidecarContainer,
  SidecarContainerUpgradeStrategy,
  SidecarContainerUpgradeType,
  SidecarSet,
  SidecarSetInjectionStrategy,
  SidecarSetInjectRevisionPolicy,
  SidecarSetPatchPodMetadata,
  SidecarSetPatchPolicyType,
  SidecarSetSpec,
  SidecarSetSpecV1alpha1,
  SidecarSetStatus,
  SidecarSetUpdateStrategy,
  SidecarSetUpdateStrategyType,
  SidecarSetV1alpha1,
  TransferEnvVar,
} from './schema/sidecarset.ts';
export type {
  PersistentVolumeClaimRetentionPolicyType,
  PodManagementPolicyType,
  PodUpdateStrategyType,
  RollingUpdateStatefulSetStrategy,
  StatefulSet,
  StatefulSetCondition,
  StatefulSetConditionType,
  StatefulSetOrdinals,
  StatefulSetPersistentVolumeClaimRetentionPolicy,
  StatefulSetScaleStrategy,
  StatefulSetSpec,
  StatefulSetSpecV1alpha1,
  StatefulSetStatus,
  StatefulSetStatusV1alpha1,
  StatefulSetUpdateStrategy,
  StatefulSetUpdateStrategyType,
  StatefulSetV1alpha1,
  UnorderedUpdateStrategy,
  VolumeClaimStatus,
  VolumeClaimUpdateStrategy,
  VolumeClaimUpdateStrategyType,
} from './schema/statefulset.ts';
