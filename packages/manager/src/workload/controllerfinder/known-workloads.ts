import { splitApiVersion } from '@kruise/runtime';

/**
 * The workload kinds the finder reads typed (upstream's validWorkloadList), each with the
 * apiVersion it is read at; references match them by group and kind, whatever the version.
 */
export const KNOWN_WORKLOADS = {
  ReplicationController: { group: '', kind: 'ReplicationController', apiVersion: 'v1' },
  Deployment: { group: 'apps', kind: 'Deployment', apiVersion: 'apps/v1' },
  ReplicaSet: { group: 'apps', kind: 'ReplicaSet', apiVersion: 'apps/v1' },
  StatefulSet: { group: 'apps', kind: 'StatefulSet', apiVersion: 'apps/v1' },
  CloneSet: { group: 'apps.kruise.io', kind: 'CloneSet', apiVersion: 'apps.kruise.io/v1alpha1' },
  AdvancedStatefulSet: { group: 'apps.kruise.io', kind: 'StatefulSet', apiVersion: 'apps.kruise.io/v1beta1' },
} as const;

/** One of {@link KNOWN_WORKLOADS}. */
export type KnownWorkload = keyof typeof KNOWN_WORKLOADS;

/** Whether an apiVersion and kind name this known workload (same group and kind). */
export function isKnownWorkload(apiVersion: string, kind: string, known: KnownWorkload): boolean {
  const w = KNOWN_WORKLOADS[known];
  return kind === w.kind && splitApiVersion(apiVersion)?.group === w.group;
}

/** The known workload an apiVersion and kind name, if any. */
export function knownWorkloadOf(apiVersion: string, kind: string): KnownWorkload | undefined {
  return (Object.keys(KNOWN_WORKLOADS) as KnownWorkload[]).find((k) => isKnownWorkload(apiVersion, kind, k));
}
