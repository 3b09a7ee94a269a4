import { type Static, Type } from '@sinclair/typebox';
import { LabelSelectorSchema, typeMetaFields } from './common.ts';
import { Int32, Int64, IntOrString, MapOf, Str, Time } from './primitives.ts';

/**
 * PodUnavailableBudget (`policy.kruise.io/v1alpha1`): how many of an application's pods may be
 * unavailable at once, for deletions, evictions and in-place updates alike.
 */

/** The workload whose pods a budget covers, instead of a selector. */
export const TargetReferenceSchema = Type.Object(
  {
    apiVersion: Type.Optional(Str('API version of the referent.')),
    kind: Type.Optional(Str('Kind of the referent.')),
    name: Type.Optional(Str('Name of the referent.')),
  },
  {
    description:
      'TargetReference contains enough information to let you identify an workload for PodUnavailableBudget Selector and TargetReference are mutually exclusive, TargetReference is priority to take effect',
  },
);
export type TargetReference = Static<typeof TargetReferenceSchema>;

export const PodUnavailableBudgetSpecSchema = Type.Object(
  {
    selector: Type.Optional(
      Type.Unsafe<Static<typeof LabelSelectorSchema>>({
        ...LabelSelectorSchema,
        description:
          'Selector label query over pods managed by the budget Selector and TargetReference are mutually exclusive, targetRef is priority to take effect. selector is commonly used in scenarios where applications are deployed using multiple workloads, and targetRef is used for protection against a single workload.',
        'x-kubernetes-map-type': 'atomic',
      }),
    ),
    targetRef: Type.Optional(TargetReferenceSchema),
    maxUnavailable: Type.Optional(
      IntOrString(
        'Delete pod, evict pod or update pod specification is allowed if at most "maxUnavailable" pods selected by "selector" or "targetRef" are unavailable after the above operation for pod. MaxUnavailable and MinAvailable are mutually exclusive, MaxUnavailable is priority to take effect',
      ),
    ),
    minAvailable: Type.Optional(
      IntOrString(
        'Delete pod, evict pod or update pod specification is allowed if at least "minAvailable" pods selected by "selector" or "targetRef" will still be available after the above operation for pod. MaxUnavailable and MinAvailable are mutually exclusive, MaxUnavailable is priority to take effect',
      ),
    ),
  },
  { description: 'PodUnavailableBudgetSpec defines the desired state of PodUnavailableBudget' },
);
export type PodUnavailableBudgetSpec = Static<typeof PodUnavailableBudgetSpecSchema>;

export const PodUnavailableBudgetStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(
      Int64(
        'Most recent generation observed when updating this PUB status. UnavailableAllowed and other status information is valid only if observedGeneration equals to PUB object generation.',
      ),
    ),
    disruptedPods: Type.Optional(
      MapOf(
        Time(),
        'DisruptedPods contains information about pods whose eviction or deletion was processed by the API handler but has not yet been observed by the PodUnavailableBudget.',
      ),
    ),
    unavailablePods: Type.Optional(
      MapOf(
        Time(),
        'UnavailablePods contains information about pods whose specification changed(inplace-update pod), once pod is available(consistent and ready) again, it will be removed from the list.',
      ),
    ),
    unavailableAllowed: Int32('UnavailableAllowed number of pod unavailable that are currently allowed'),
    currentAvailable: Int32('CurrentAvailable current number of available pods'),
    desiredAvailable: Int32('DesiredAvailable minimum desired number of available pods'),
    totalReplicas: Int32('TotalReplicas total number of pods counted by this unavailable budget'),
  },
  { description: 'PodUnavailableBudgetStatus defines the observed state of PodUnavailableBudget' },
);
export type PodUnavailableBudgetStatus = Static<typeof PodUnavailableBudgetStatusSchema>;

/** PodUnavailableBudget. */
export const PodUnavailableBudgetSchema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(PodUnavailableBudgetSpecSchema),
  status: Type.Optional(PodUnavailableBudgetStatusSchema),
});
export type PodUnavailableBudget = Static<typeof PodUnavailableBudgetSchema>;
