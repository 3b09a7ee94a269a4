import { KruiseResources, type SidecarSet } from '@kruise/api';
import { type KubeObject, type Manager, Resources } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { trimmedNamespaces } from '../../../informers.ts';
import { synced } from '../../../workload/cache-sync.ts';
import { SIDECARSET_NAME_LABEL } from '../../../workload/sidecarset/keys.ts';
import type { SidecarSetLookups } from './lookups.ts';

/**
 * The SidecarSet step's lookups from the manager's shared informers (SidecarSets, Namespaces
 * trimmed to their labels, ControllerRevisions), which run on every replica; a request waits for a
 * cache's first list.
 */
export function cachedSidecarSetLookups(manager: Manager, kruiseNamespace: string): SidecarSetLookups {
  const f = manager.informers;
  const sidecarSets = f.informerFor<SidecarSet & KubeObject>({ resource: KruiseResources.SidecarSet });
  const namespaces = trimmedNamespaces(manager);
  const revisions = f.informerFor<ControllerRevision & KubeObject>({
    resource: Resources.ControllerRevision,
  });
  return {
    sidecarSets: async () => {
      await synced(sidecarSets);
      return sidecarSets.list();
    },
    namespaceLabels: async (name) => {
      await synced(namespaces);
      const ns = namespaces.get(name);
      return ns ? (ns.metadata?.labels ?? {}) : undefined;
    },
    revisions: async (sidecarSet) => {
      await synced(revisions);
      return revisions
        .list()
        .filter(
          (r) =>
            r.metadata?.namespace === kruiseNamespace &&
            r.metadata?.labels?.[SIDECARSET_NAME_LABEL] === sidecarSet,
        );
    },
    revision: async (name) => {
      await synced(revisions);
      return revisions.get(`${kruiseNamespace}/${name}`);
    },
  };
}
