import { KruiseResources } from '@kruise/api';
import { labelSelectorMatches } from '@kruise/kube-compat';
import {
  Indexers,
  type Informer,
  type KubeObject,
  type Manager,
  objectPath,
  RestMapper,
  unlessNotFound,
} from '@kruise/runtime';
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { trimmedPods } from '../../informers.ts';
import { synced } from '../cache-sync.ts';
import { readKruiseConfiguration } from '../configuration/index.ts';
import type { KnownWorkload } from './known-workloads.ts';
import type { FinderSources, ObjectRef } from './types.ts';
import {
  trimmedDeployments,
  trimmedReplicaSets,
  trimmedReplicationControllers,
  trimmedStatefulSets,
} from './workload-informers.ts';

const OWNER_UID = 'ownerUid';
const NAMESPACE = 'namespace';

/**
 * Sources backed by kruise-manager's shared informers — CloneSets and Advanced StatefulSets as
 * their controllers cache them, Deployments, ReplicaSets, StatefulSets and ReplicationControllers
 * trimmed to what the finder reads, pods as the shared trimmed pod informer keeps them (indexed by
 * owner UID and namespace) — and, for what no cache has (the scale subresource of other kinds,
 * objects of any other kind, the kruise-configuration ConfigMap in `kruiseNamespace`), the API, kinds
 * mapped to resources through discovery. A read waits for its cache's first list (and fails after
 * 10 s). Call it while the manager's controllers are added, before the informers start.
 */
export function cachedFinderSources(manager: Manager, kruiseNamespace: string): FinderSources {
  const f = manager.informers;
  const workloads: Record<KnownWorkload, Informer<KubeObject>> = {
    ReplicationController: trimmedReplicationControllers(manager),
    Deployment: trimmedDeployments(manager),
    ReplicaSet: trimmedReplicaSets(manager),
    StatefulSet: trimmedStatefulSets(manager),
    CloneSet: f.informerFor<KubeObject>({ resource: KruiseResources.CloneSet }),
    AdvancedStatefulSet: f.informerFor<KubeObject>({ resource: KruiseResources.StatefulSet }),
  };
  workloads.ReplicaSet.addIndex(OWNER_UID, Indexers.ownerUid);
  const pods = trimmedPods(manager) as unknown as Informer<Pod & KubeObject>;
  pods.addIndex(OWNER_UID, Indexers.ownerUid).addIndex(NAMESPACE, Indexers.namespace);
  const mapper = new RestMapper(manager.client);
  const inNamespace = (namespace: string) => (o: KubeObject) => o.metadata?.namespace === namespace;

  return {
    async workload(kind, namespace, name) {
      await synced(workloads[kind]);
      return workloads[kind].get(`${namespace}/${name}`);
    },
    async replicaSetsOwnedBy(namespace, ownerUid) {
      await synced(workloads.ReplicaSet);
      return workloads.ReplicaSet.byIndex(OWNER_UID, ownerUid).filter(inNamespace(namespace)) as ReplicaSet[];
    },
    async podsOwnedBy(namespace, ownerUid) {
      await synced(pods);
      return pods.byIndex(OWNER_UID, ownerUid).filter(inNamespace(namespace));
    },
    async podsMatching(namespace, selector) {
      await synced(pods);
      return pods
        .byIndex(NAMESPACE, namespace)
        .filter((p) => labelSelectorMatches(selector, p.metadata?.labels));
    },
    async kruiseConfiguration() {
      return (await readKruiseConfiguration(manager.client, kruiseNamespace))?.data ?? undefined;
    },
    async scale(ref: ObjectRef, namespace: string) {
      const resource = await mapper.resourceFor(ref.apiVersion, ref.kind);
      return unlessNotFound(
        manager.client.request<Scale>('GET', objectPath(resource, namespace, ref.name, 'scale')),
      );
    },
    async object(ref: ObjectRef, namespace: string) {
      const resource = await mapper.resourceFor(ref.apiVersion, ref.kind);
      return unlessNotFound(manager.client.get(resource, namespace, ref.name));
    },
  };
}
