/**
 * The JSON shape of Kruise's own Go structs (apps.kruise.io/v1alpha1 at v1.9, and the shared
 * `pub` types), in the notation of go-types.ts.
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
};
