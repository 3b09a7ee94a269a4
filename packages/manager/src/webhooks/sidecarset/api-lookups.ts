import { KruiseResources, type SidecarSet } from '@kruise/api';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { readKruiseConfiguration } from '../../workload/configuration/index.ts';
import type { RevisionRecord, SidecarSetAdmissionLookups } from './lookups.ts';

/**
 * The SidecarSet webhook's lookups read from the API at each request (SidecarSets are few and
 * validated rarely; ControllerRevisions and the ConfigMap live in the Kruise namespace `namespace`).
 */
export function apiSidecarSetLookups(client: KubeClient, namespace: string): SidecarSetAdmissionLookups {
  return {
    sidecarSets: async () =>
      (await client.listAll<SidecarSet & KubeObject>(KruiseResources.SidecarSet)).items,
    revision: (name) =>
      client.get<RevisionRecord & KubeObject>(Resources.ControllerRevision, namespace, name),
    revisions: async (labels) =>
      (
        await client.listAll<RevisionRecord & KubeObject>(Resources.ControllerRevision, {
          namespace,
          labelSelector: Object.entries(labels)
            .map(([k, v]) => `${k}=${v}`)
            .join(','),
        })
      ).items,
    configuration: () => readKruiseConfiguration(client, namespace),
  };
}
