import type { ContainerRecreateRequest, ContainerRecreateRequestStrategy } from '@kruise/api';

/**
 * kruise-tools' defaults for a ContainerRecreateRequest it creates (`create ContainerRecreateRequest`):
 * fail on the first container that fails, mark the pod not ready 3 s before stopping, count a
 * container restarted once it has run 3 s, give up after 300 s, delete the request 1800 s after.
 */
export const CRR_DEFAULTS = {
  strategy: {
    failurePolicy: 'Fail',
    orderedRecreate: false,
    unreadyGracePeriodSeconds: 3,
    minStartedSeconds: 3,
  } satisfies ContainerRecreateRequestStrategy,
  activeDeadlineSeconds: 300,
  ttlSecondsAfterFinished: 1800,
} as const;

/** What a caller may set on a request built by {@link containerRecreateRequest}. */
export interface CrrOptions {
  namespace: string;
  name: string;
  podName: string;
  containers: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  unreadyGracePeriodSeconds?: number;
  minStartedSeconds?: number;
  activeDeadlineSeconds?: number;
}

/**
 * A ContainerRecreateRequest for the named containers of a pod, with kruise-tools' defaults. The
 * containers carry their names only: the webhook fills preStop, ports and statusContext from the
 * pod (and rejects them when a client sets them).
 */
export function containerRecreateRequest(o: CrrOptions): ContainerRecreateRequest {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'ContainerRecreateRequest',
    metadata: {
      name: o.name,
      namespace: o.namespace,
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.annotations ? { annotations: o.annotations } : {}),
    },
    spec: {
      podName: o.podName,
      containers: o.containers.map((name) => ({ name })),
      strategy: {
        ...CRR_DEFAULTS.strategy,
        unreadyGracePeriodSeconds:
          o.unreadyGracePeriodSeconds ?? CRR_DEFAULTS.strategy.unreadyGracePeriodSeconds,
        minStartedSeconds: o.minStartedSeconds ?? CRR_DEFAULTS.strategy.minStartedSeconds,
      },
      activeDeadlineSeconds: o.activeDeadlineSeconds ?? CRR_DEFAULTS.activeDeadlineSeconds,
      ttlSecondsAfterFinished: CRR_DEFAULTS.ttlSecondsAfterFinished,
    },
  } as ContainerRecreateRequest;
}

/** How a request ended, from its status: still running, succeeded, or failed with a message. */
export type CrrOutcome =
  | { done: false }
  | { done: true; ok: true }
  | { done: true; ok: false; message: string };

/**
 * Reads a request's status. Completed with every container Succeeded is a success; completed
 * otherwise (a container Failed, the pod gone, the deadline passed, the daemon silent) is a failure
 * whose message is the request's, or the first failed container's.
 */
export function crrOutcome(crr: ContainerRecreateRequest): CrrOutcome {
  const status = crr.status;
  if (status?.phase !== 'Completed') return { done: false };
  const states = status.containerRecreateStates ?? [];
  const wanted = crr.spec?.containers.map((c) => c.name) ?? [];
  const failed = states.find((s) => s.phase === 'Failed');
  const allSucceeded = wanted.every((n) => states.some((s) => s.name === n && s.phase === 'Succeeded'));
  if (allSucceeded && !failed) return { done: true, ok: true };
  const message =
    status.message ||
    (failed ? `container ${failed.name} failed${failed.message ? `: ${failed.message}` : ''}` : '') ||
    'completed without restarting every container';
  return { done: true, ok: false, message };
}
