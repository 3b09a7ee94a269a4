/**
 * The JSON shape of Kruise's own Go structs (apps.kruise.io/v1alpha1 at v1.9, and the shared
 * `pub` types), in the notation of kube-compat's go-core-structs.ts.
 */
export const KRUISE_GO_STRUCTS: Record<string, string> = {
  // (Kruise's Lifecycle is KruiseLifecycle here: core/v1 has a Lifecycle of its own.)
  // core/v1 Pod as a webhook decodes it (its status is not looked at).
  Pod: '...TypeMeta metadata:ObjectMeta spec:PodSpec status:raw',
  CloneSet: '...TypeMeta metadata:ObjectMeta spec:CloneSetSpec status:raw',
  CloneSetSpec:
    'replicas:*i selector:*LabelSelector! template:PodTemplateSpec volumeClaimTemplates:[]PersistentVolumeClaim scaleStrategy:CloneSetScaleStrategy updateStrategy:CloneSetUpdateStrategy revisionHistoryLimit:*i minReadySeconds:i lifecycle:*KruiseLifecycle progressDeadlineSeconds:*i',
  CloneSetScaleStrategy: 'podsToDelete:[]s maxUnavailable:*ios disablePVCReuse:b',
  CloneSetUpdateStrategy:
    'type:s partition:*ios maxUnavailable:*ios maxSurge:*ios paused:b priorityStrategy:*UpdatePriorityStrategy scatterStrategy:[]UpdateScatterTerm inPlaceUpdateStrategy:*InPlaceUpdateStrategy',
  KruiseLifecycle: 'preDelete:*LifecycleHook inPlaceUpdate:*LifecycleHook preNormal:*LifecycleHook',
  LifecycleHook: 'labelsHandler:{}s finalizersHandler:[]s markPodNotReady:b',
  UpdatePriorityStrategy: 'orderPriority:[]UpdatePriorityOrderTerm weightPriority:[]UpdatePriorityWeightTerm',
  UpdatePriorityOrderTerm: 'orderedKey:s!',
  UpdatePriorityWeightTerm: 'weight:i! matchSelector:LabelSelector!',
  UpdateScatterTerm: 'key:s! value:s!',
  InPlaceUpdateStrategy: 'gracePeriodSeconds:i',
  // Advanced StatefulSet (apps.kruise.io/v1beta1, and the fields v1alpha1 shares with it).
  StatefulSet: '...TypeMeta metadata:ObjectMeta spec:StatefulSetSpec status:StatefulSetStatus',
  StatefulSetSpec:
    'replicas:*i selector:*LabelSelector! template:PodTemplateSpec volumeClaimTemplates:[]PersistentVolumeClaim volumeClaimUpdateStrategy:VolumeClaimUpdateStrategy serviceName:s podManagementPolicy:s updateStrategy:StatefulSetUpdateStrategy revisionHistoryLimit:*i reserveOrdinals:[]ios lifecycle:*KruiseLifecycle scaleStrategy:*StatefulSetScaleStrategy persistentVolumeClaimRetentionPolicy:*StatefulSetPersistentVolumeClaimRetentionPolicy ordinals:*StatefulSetOrdinals',
  StatefulSetV1alpha1:
    '...TypeMeta metadata:ObjectMeta spec:StatefulSetSpecV1alpha1 status:StatefulSetStatusV1alpha1',
  StatefulSetSpecV1alpha1:
    'replicas:*i selector:*LabelSelector! template:PodTemplateSpec volumeClaimTemplates:[]PersistentVolumeClaim serviceName:s podManagementPolicy:s updateStrategy:StatefulSetUpdateStrategy revisionHistoryLimit:*i',
  StatefulSetUpdateStrategy: 'type:s rollingUpdate:*RollingUpdateStatefulSetStrategy',
  RollingUpdateStatefulSetStrategy:
    'partition:*i maxUnavailable:*ios podUpdatePolicy:s paused:b unorderedUpdate:*UnorderedUpdateStrategy inPlaceUpdateStrategy:*InPlaceUpdateStrategy minReadySeconds:*i',
  UnorderedUpdateStrategy: 'priorityStrategy:*UpdatePriorityStrategy',
  VolumeClaimUpdateStrategy: 'type:s',
  StatefulSetScaleStrategy: 'maxUnavailable:*ios',
  StatefulSetPersistentVolumeClaimRetentionPolicy: 'whenDeleted:s whenScaled:s',
  StatefulSetOrdinals: 'start:i!',
  StatefulSetStatus:
    'observedGeneration:i replicas:i! readyReplicas:i! availableReplicas:i! currentReplicas:i! updatedReplicas:i! updatedReadyReplicas:i updatedAvailableReplicas:i currentRevision:s updateRevision:s collisionCount:*i conditions:[]StatefulSetCondition labelSelector:s volumeClaims:[]VolumeClaimStatus',
  StatefulSetStatusV1alpha1:
    'observedGeneration:i replicas:i! readyReplicas:i! availableReplicas:i! currentReplicas:i! updatedReplicas:i! currentRevision:s updateRevision:s collisionCount:*i conditions:[]StatefulSetCondition labelSelector:s',
  StatefulSetCondition: 'type:s! status:s! lastTransitionTime:t reason:s message:s',
  VolumeClaimStatus: 'volumeClaimName:s! compatibleReplicas:i! compatibleReadyReplicas:i!',
  // Advanced DaemonSet (apps.kruise.io/v1beta1, and v1alpha1 without scaleStrategy, with daemonSetHash).
  DaemonSet: '...TypeMeta metadata:ObjectMeta spec:DaemonSetSpec status:DaemonSetStatus',
  DaemonSetSpec:
    'selector:*LabelSelector! template:PodTemplateSpec! updateStrategy:DaemonSetUpdateStrategy minReadySeconds:i burstReplicas:*ios revisionHistoryLimit:*i lifecycle:*KruiseLifecycle scaleStrategy:*DaemonSetScaleStrategy',
  DaemonSetV1alpha1:
    '...TypeMeta metadata:ObjectMeta spec:DaemonSetSpecV1alpha1 status:DaemonSetStatusV1alpha1',
  DaemonSetSpecV1alpha1:
    'selector:*LabelSelector! template:PodTemplateSpec! updateStrategy:DaemonSetUpdateStrategy minReadySeconds:i burstReplicas:*ios revisionHistoryLimit:*i lifecycle:*KruiseLifecycle',
  DaemonSetUpdateStrategy: 'type:s rollingUpdate:*RollingUpdateDaemonSet',
  RollingUpdateDaemonSet:
    'rollingUpdateType:s maxUnavailable:*ios maxSurge:*ios selector:*LabelSelector partition:*ios paused:*b',
  DaemonSetScaleStrategy: 'partitionedScaling:b',
  DaemonSetStatus:
    'currentNumberScheduled:i! numberMisscheduled:i! desiredNumberScheduled:i! numberReady:i! observedGeneration:i updatedNumberScheduled:i! numberAvailable:i numberUnavailable:i collisionCount:*i conditions:[]DaemonSetCondition updateRevision:s',
  DaemonSetStatusV1alpha1:
    'currentNumberScheduled:i! numberMisscheduled:i! desiredNumberScheduled:i! numberReady:i! observedGeneration:i updatedNumberScheduled:i! numberAvailable:i numberUnavailable:i collisionCount:*i conditions:[]DaemonSetCondition daemonSetHash:s',
  DaemonSetCondition: 'type:s! status:s! lastTransitionTime:t reason:s message:s',
  // BroadcastJob (apps.kruise.io/v1beta1; v1alpha1 has the same fields).
  BroadcastJob: '...TypeMeta metadata:ObjectMeta spec:BroadcastJobSpec status:BroadcastJobStatus',
  BroadcastJobSpec:
    'parallelism:*ios template:PodTemplateSpec! completionPolicy:BroadcastJobCompletionPolicy! paused:b failurePolicy:BroadcastJobFailurePolicy',
  BroadcastJobCompletionPolicy: 'type:s activeDeadlineSeconds:*i ttlSecondsAfterFinished:*i',
  BroadcastJobFailurePolicy: 'type:s restartLimit:i',
  BroadcastJobStatus:
    'conditions:[]JobCondition startTime:*t completionTime:*t active:i! succeeded:i! failed:i! desired:i! phase:s!',
  JobCondition: 'type:s! status:s! lastProbeTime:t lastTransitionTime:t reason:s message:s',
  // AdvancedCronJob (apps.kruise.io v1beta1; v1alpha1 has no imageListPullJobTemplate) and the
  // job templates it holds: batch/v1 JobTemplateSpec, BroadcastJob's and ImageListPullJob's.
  AdvancedCronJob: '...TypeMeta metadata:ObjectMeta spec:AdvancedCronJobSpec status:raw',
  AdvancedCronJobV1alpha1: '...TypeMeta metadata:ObjectMeta spec:AdvancedCronJobSpecV1alpha1 status:raw',
  AdvancedCronJobSpec:
    'schedule:s! timeZone:*s startingDeadlineSeconds:*i concurrencyPolicy:s paused:*b successfulJobsHistoryLimit:*i failedJobsHistoryLimit:*i template:CronJobTemplate!',
  AdvancedCronJobSpecV1alpha1:
    'schedule:s! timeZone:*s startingDeadlineSeconds:*i concurrencyPolicy:s paused:*b successfulJobsHistoryLimit:*i failedJobsHistoryLimit:*i template:CronJobTemplateV1alpha1!',
  CronJobTemplate:
    'jobTemplate:*JobTemplateSpec broadcastJobTemplate:*BroadcastJobTemplateSpec imageListPullJobTemplate:*ImageListPullJobTemplateSpec',
  CronJobTemplateV1alpha1: 'jobTemplate:*JobTemplateSpec broadcastJobTemplate:*BroadcastJobTemplateSpec',
  JobTemplateSpec: 'metadata:ObjectMeta spec:JobSpec',
  JobSpec:
    'parallelism:*i completions:*i activeDeadlineSeconds:*i podFailurePolicy:*raw successPolicy:*raw backoffLimit:*i backoffLimitPerIndex:*i maxFailedIndexes:*i selector:*LabelSelector manualSelector:*b template:PodTemplateSpec! ttlSecondsAfterFinished:*i completionMode:*s suspend:*b podReplacementPolicy:*s managedBy:*s',
  // (Their metadata is kept as sent: the CRD prunes it, an embedded ObjectMeta without properties.)
  BroadcastJobTemplateSpec: 'metadata:raw spec:BroadcastJobSpec',
  ImageListPullJobTemplateSpec: 'metadata:raw spec:ImageListPullJobSpec',
  // (ImagePullJob's CompletionPolicy has BroadcastJob's fields.)
  ImageListPullJobSpec:
    'images:[]s! pullSecrets:[]s selector:*raw podSelector:*raw parallelism:*ios pullPolicy:*ImagePullJobPullPolicy completionPolicy:BroadcastJobCompletionPolicy! sandboxConfig:*raw imagePullPolicy:s',
  ImagePullJobPullPolicy: 'timeoutSeconds:*i backoffLimit:*i',
  // SidecarSet (apps.kruise.io/v1beta1, and v1alpha1 with namespace instead of customVersion) as
  // its webhooks decode and write it back.
  SidecarSet: '...TypeMeta metadata:ObjectMeta spec:SidecarSetSpec status:raw',
  SidecarSetV1alpha1: '...TypeMeta metadata:ObjectMeta spec:SidecarSetSpecV1alpha1 status:raw',
  SidecarSetSpec:
    'selector:*LabelSelector namespaceSelector:*LabelSelector initContainers:[]SidecarContainer containers:[]SidecarContainer volumes:[]Volume updateStrategy:SidecarSetUpdateStrategy! injectionStrategy:SidecarSetInjectionStrategy! imagePullSecrets:[]LocalObjectReference revisionHistoryLimit:*i patchPodMetadata:[]SidecarSetPatchPodMetadata customVersion:s',
  SidecarSetSpecV1alpha1:
    'selector:*LabelSelector namespace:s namespaceSelector:*LabelSelector initContainers:[]SidecarContainer containers:[]SidecarContainer volumes:[]Volume updateStrategy:SidecarSetUpdateStrategy! injectionStrategy:SidecarSetInjectionStrategy! imagePullSecrets:[]LocalObjectReference revisionHistoryLimit:*i patchPodMetadata:[]SidecarSetPatchPodMetadata',
  SidecarSetUpdateStrategy:
    'type:s paused:b selector:*LabelSelector partition:*ios maxUnavailable:*ios priorityStrategy:*UpdatePriorityStrategy scatterStrategy:[]UpdateScatterTerm',
  SidecarSetInjectionStrategy: 'paused:b revision:*SidecarSetInjectRevision',
  SidecarSetInjectRevision: 'customVersion:*s revisionName:*s policy:s',
  SidecarSetPatchPodMetadata: 'annotations:{}s patchPolicy:s',
  // SidecarSet (apps.kruise.io/v1beta1): what its hashes are computed over.
  SidecarContainer:
    '...Container podInjectPolicy:s upgradeStrategy:SidecarContainerUpgradeStrategy! shareVolumePolicy:ShareVolumePolicy! shareVolumeDevicePolicy:*ShareVolumePolicy transferEnv:[]TransferEnvVar resourcesPolicy:*ResourcesPolicy',
  SidecarContainerUpgradeStrategy: 'upgradeType:s hotUpgradeEmptyImage:s',
  ShareVolumePolicy: 'type:s',
  TransferEnvVar:
    'sourceContainerName:s sourceContainerNameFrom:*SourceContainerNameSource envName:s envNames:[]s',
  SourceContainerNameSource: 'fieldRef:*ObjectFieldSelector',
  ResourcesPolicy: 'targetContainersMode:s! targetContainersNameRegex:s resourcesExpr:ResourcesExpr!',
  ResourcesExpr: 'limits:*ResourceExprValues requests:*ResourceExprValues',
  ResourceExprValues: 'cpu:s memory:s',
};
