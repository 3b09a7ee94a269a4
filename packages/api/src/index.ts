/**
 * What the manager and daemon use at run time: types (erased), well-known keys, defaults and
 * image references. The TypeBox schemas and CRD rendering live behind `@kruise/api/schemas`, so
 * loading this entry does not load TypeBox.
 */
export * from './defaults.ts';
export * from './env-from-metadata-hash.ts';
export * from './feature-gates.ts';
export * from './go-hash.ts';
export * from './go-json.ts';
export * from './group.ts';
export * from './image-reference.ts';
export * from './intstr.ts';
export * from './keys.ts';
export * from './kubelet-hash.ts';
export * from './label-selector.ts';
export * from './parallelism.ts';
export * from './pod-defaults.ts';
export * from './quantity.ts';
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
  InPlaceUpdateStrategy,
  Lifecycle,
  LifecycleHook,
  UpdatePriorityOrderTerm,
  UpdatePriorityStrategy,
  UpdatePriorityWeightTerm,
  UpdateScatterTerm,
} from './schema/pub.ts';
export * from './time.ts';
