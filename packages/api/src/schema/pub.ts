import { type Static, Type } from '@sinclair/typebox';
import { LabelSelectorSchema } from './common.ts';
import { Bool, Int32, Str, StringMap } from './primitives.ts';

/**
 * The `apps.kruise.io/pub` types every Kruise workload shares: lifecycle hooks, update priority
 * and the in-place update strategy.
 */

/** A lifecycle hook: the pod waits in a hooked state while any of these labels/finalizers is present. */
export const LifecycleHookSchema = Type.Object({
  labelsHandler: Type.Optional(StringMap()),
  finalizersHandler: Type.Optional(Type.Array(Type.String())),
  markPodNotReady: Type.Optional(
    Bool(
      'MarkPodNotReady = true means the Pod is set NotReady (KruisePodReady False) at preparingDelete/preparingUpdate state. Only takes effect on the InPlaceUpdate and PreDelete hooks. Default to false.',
    ),
  ),
});
export type LifecycleHook = Static<typeof LifecycleHookSchema>;

/** Hooks for pre-available (preNormal), pre-delete and in-place update. */
export const LifecycleSchema = Type.Object(
  {
    preDelete: Type.Optional(LifecycleHookSchema),
    inPlaceUpdate: Type.Optional(LifecycleHookSchema),
    preNormal: Type.Optional(LifecycleHookSchema),
  },
  {
    description:
      'Lifecycle defines the lifecycle hooks for Pods pre-available(pre-normal), pre-delete, in-place update.',
  },
);
export type Lifecycle = Static<typeof LifecycleSchema>;

/** One weight term: pods matching the selector get the weight added to their priority. */
export const UpdatePriorityWeightTermSchema = Type.Object({
  weight: Int32('Weight associated with matching the corresponding matchExpressions, in the range 1-100.'),
  matchSelector: LabelSelectorSchema,
});
export type UpdatePriorityWeightTerm = Static<typeof UpdatePriorityWeightTermSchema>;

/** One order term: pods are sorted by the last integer in the value of this label. */
export const UpdatePriorityOrderTermSchema = Type.Object({
  orderedKey: Str('Calculate priority by the last integer in the value of this label key.'),
});
export type UpdatePriorityOrderTerm = Static<typeof UpdatePriorityOrderTermSchema>;

/** Update ordering: weight terms or order terms (exactly one kind). */
export const UpdatePriorityStrategySchema = Type.Object(
  {
    orderPriority: Type.Optional(Type.Array(UpdatePriorityOrderTermSchema)),
    weightPriority: Type.Optional(Type.Array(UpdatePriorityWeightTermSchema)),
  },
  { description: 'Priorities are the rules for calculating the priority of updating pods.' },
);
export type UpdatePriorityStrategy = Static<typeof UpdatePriorityStrategySchema>;

/** Strategies for in-place update. */
export const InPlaceUpdateStrategySchema = Type.Object(
  {
    gracePeriodSeconds: Type.Optional(
      Int32(
        'GracePeriodSeconds is the timespan between set Pod status to not-ready and update images in Pod spec when in-place update a Pod.',
      ),
    ),
  },
  { description: 'InPlaceUpdateStrategy contains strategies for in-place update.' },
);
export type InPlaceUpdateStrategy = Static<typeof InPlaceUpdateStrategySchema>;

/** One scatter term: pods carrying label key=value are spread across the update order. */
export const UpdateScatterTermSchema = Type.Object({ key: Str(), value: Str() });
export type UpdateScatterTerm = Static<typeof UpdateScatterTermSchema>;
