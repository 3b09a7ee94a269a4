import { type Static, Type } from '@sinclair/typebox';
import { ContainerPortSchema, ProbeHandlerSchema, typeMetaFields } from './common.ts';
import { Bool, Int32, Int64, Str, Time } from './primitives.ts';

export const ContainerRecreateRequestContainerContextSchema = Type.Object({
  containerID: Str("Container's ID in the format 'containerd://<container_id>'."),
  restartCount: Int32('The number of times the container has been restarted.'),
});
export type ContainerRecreateRequestContainerContext = Static<
  typeof ContainerRecreateRequestContainerContextSchema
>;

export const ContainerRecreateRequestContainerSchema = Type.Object({
  name: Str('Name of the container that need to recreate.'),
  preStop: Type.Optional(ProbeHandlerSchema),
  ports: Type.Optional(Type.Array(ContainerPortSchema)),
  statusContext: Type.Optional(ContainerRecreateRequestContainerContextSchema),
});
export type ContainerRecreateRequestContainer = Static<typeof ContainerRecreateRequestContainerSchema>;

export const ContainerRecreateRequestStrategySchema = Type.Object({
  failurePolicy: Type.Optional(
    Str('FailurePolicy decides whether to continue if one container fails to recreate'),
  ),
  orderedRecreate: Type.Optional(Bool()),
  forceRecreate: Type.Optional(Bool()),
  terminationGracePeriodSeconds: Type.Optional(Int64()),
  unreadyGracePeriodSeconds: Type.Optional(Int64()),
  minStartedSeconds: Type.Optional(Int32()),
});
export type ContainerRecreateRequestStrategy = Static<typeof ContainerRecreateRequestStrategySchema>;

export const ContainerRecreateRequestSpecSchema = Type.Object({
  podName: Str('PodName is name of the Pod that owns the recreated containers.'),
  containers: Type.Array(ContainerRecreateRequestContainerSchema),
  strategy: Type.Optional(ContainerRecreateRequestStrategySchema),
  activeDeadlineSeconds: Type.Optional(Int64()),
  ttlSecondsAfterFinished: Type.Optional(Int32()),
});
export type ContainerRecreateRequestSpec = Static<typeof ContainerRecreateRequestSpecSchema>;

/** Phases: Pending, Recreating, Completed for the request; Succeeded and Failed per container. */
export type ContainerRecreateRequestPhase = 'Pending' | 'Recreating' | 'Succeeded' | 'Failed' | 'Completed';

export const ContainerRecreateStateSchema = Type.Object({
  name: Str(),
  phase: Type.Unsafe<ContainerRecreateRequestPhase>({ type: 'string' }),
  message: Type.Optional(Str()),
  isKilled: Type.Optional(Bool()),
});
export type ContainerRecreateState = Static<typeof ContainerRecreateStateSchema>;

export const ContainerRecreateRequestStatusSchema = Type.Object({
  phase: Type.Unsafe<ContainerRecreateRequestPhase>({ type: 'string' }),
  completionTime: Type.Optional(Time()),
  message: Type.Optional(Str()),
  containerRecreateStates: Type.Optional(Type.Array(ContainerRecreateStateSchema)),
});
export type ContainerRecreateRequestStatus = Static<typeof ContainerRecreateRequestStatusSchema>;

/** ContainerRecreateRequest: restart containers of a running pod in place. */
export const ContainerRecreateRequestSchema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(ContainerRecreateRequestSpecSchema),
  status: Type.Optional(ContainerRecreateRequestStatusSchema),
});
export type ContainerRecreateRequest = Static<typeof ContainerRecreateRequestSchema>;

/** One entry of the `crr.apps.kruise.io/sync-container-statuses` annotation. */
export interface ContainerRecreateRequestSyncContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  containerID?: string;
}
