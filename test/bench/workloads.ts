import { KruiseResources } from '@kruise/api';
import type { ResourceRef } from '@kruise/kube-compat';
import { type KubeObject, Resources } from '@kruise/runtime';

/** The pods of the benches whose pods are bound, not run (raw creates and workloads alike). */
export const BENCH_POD_SPEC = { containers: [{ name: 'app', image: 'busybox:v1' }] };

/** How an update replaces the pods' image: in place when it can, or by new pods. */
export type UpdateStrategy = 'InPlaceIfPossible' | 'ReCreate';

/** A Kruise workload as the benches write it: one manifest, one way to pick the update strategy. */
export interface BenchWorkload {
  /** Its suite: the prefix of the figures. */
  suite: string;
  /** How the figures name it: `CloneSet`, `Advanced StatefulSet (Parallel)`. */
  title: string;
  resource: ResourceRef;
  /** What paces a rolling update of it, for the captions. */
  pacing: string;
  /**
   * The workload `name` of `replicas` pods of `podSpec` labelled `app: <name>`, updating by
   * ReCreate, as a user writes it (the mutating webhook defaults the rest).
   */
  manifest(name: string, replicas: number, podSpec: Record<string, unknown>): KubeObject;
  /** The spec fields (a merge patch) that make its next update go by `strategy`. */
  strategy(strategy: UpdateStrategy): Record<string, unknown>;
  /** Whether a user's install has admission webhooks on its pods (default true: Kruise's pod webhook). */
  webhooks?: boolean;
  /**
   * Its status as an update is followed: pods ready, and pods updated and ready
   * (`readyReplicas` and `updatedReadyReplicas` unless given).
   */
  progress?(status: Record<string, any>): { ready?: number; updatedReady?: number };
}

/** An Advanced DaemonSet (v1beta1): one pod per node; maxUnavailable 1 (its default) paces an update. */
export const daemonSetWorkload: BenchWorkload = {
  suite: 'daemonset',
  title: 'Advanced DaemonSet',
  resource: KruiseResources.DaemonSet,
  pacing: 'maxUnavailable 1 (the default): one node at a time',
  manifest: (name, _replicas, podSpec) => ({
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { rollingUpdateType: 'Standard' } },
      template: { metadata: { labels: { app: name } }, spec: podSpec },
    },
  }),
  strategy: (strategy) => ({
    updateStrategy: {
      rollingUpdate: { rollingUpdateType: strategy === 'ReCreate' ? 'Standard' : 'InPlaceIfPossible' },
    },
  }),
  progress: (s) => ({
    ready: s.numberReady,
    updatedReady: Math.min(s.updatedNumberScheduled ?? 0, s.numberAvailable ?? 0),
  }),
};

/**
 * A native apps/v1 Deployment, run by the control plane's own kube-controller-manager part (no
 * Kruise install, so no webhooks): maxUnavailable and maxSurge 25 % (the defaults) pace an update.
 */
export const deploymentWorkload: BenchWorkload = {
  suite: 'deployment',
  title: 'Deployment',
  resource: Resources.Deployment,
  pacing: 'maxSurge 25%, maxUnavailable 25% (the defaults)',
  webhooks: false,
  manifest: (name, replicas, podSpec) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: podSpec },
    },
  }),
  strategy: (strategy) =>
    strategy === 'ReCreate' ? { strategy: { type: 'Recreate' } } : { strategy: { type: 'RollingUpdate' } },
};

/** A CloneSet: its default maxUnavailable (20 %) paces an update. */
export const cloneSetWorkload: BenchWorkload = {
  suite: 'cloneset',
  title: 'CloneSet',
  resource: KruiseResources.CloneSet,
  pacing: 'maxUnavailable 20% (the default)',
  manifest: (name, replicas, podSpec) => ({
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      updateStrategy: { type: 'ReCreate' },
      template: { metadata: { labels: { app: name } }, spec: podSpec },
    },
  }),
  strategy: (strategy) => ({ updateStrategy: { type: strategy } }),
};

/**
 * An Advanced StatefulSet (v1beta1) without volumeClaimTemplates and with scaleStrategy's
 * defaults. Parallel: rollingUpdate.maxUnavailable 20 % paces an update, as a CloneSet's default
 * does (the set's own default is 1); OrderedReady allows only 1.
 */
export function statefulSetWorkload(policy: 'Parallel' | 'OrderedReady'): BenchWorkload {
  const rollingUpdate = policy === 'Parallel' ? { maxUnavailable: '20%' } : {};
  return {
    suite: 'statefulset',
    title: `Advanced StatefulSet (${policy})`,
    resource: KruiseResources.StatefulSet,
    pacing:
      policy === 'Parallel'
        ? 'Parallel, rollingUpdate.maxUnavailable 20%'
        : 'OrderedReady, one pod at a time',
    manifest: (name, replicas, podSpec) => ({
      apiVersion: 'apps.kruise.io/v1beta1',
      kind: 'StatefulSet',
      metadata: { name, namespace: 'default' },
      spec: {
        replicas,
        podManagementPolicy: policy,
        selector: { matchLabels: { app: name } },
        updateStrategy: {
          type: 'RollingUpdate',
          rollingUpdate: { ...rollingUpdate, podUpdatePolicy: 'ReCreate' },
        },
        template: {
          metadata: { labels: { app: name } },
          spec: podSpec,
        },
      },
    }),
    strategy: (strategy) => ({ updateStrategy: { rollingUpdate: { podUpdatePolicy: strategy } } }),
  };
}
