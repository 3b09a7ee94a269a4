import { isAlreadyExists, isNotFound, type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { RevisionStore } from './history.ts';

const asRevision = (o: KubeObject) => o as unknown as ControllerRevision;

/** The ControllerRevisions of a namespace, over the API (what every workload writes its history to). */
export function revisionStore(client: KubeClient, namespace: string): RevisionStore {
  return {
    create: async (r) => {
      try {
        return asRevision(await client.create(Resources.ControllerRevision, r as unknown as KubeObject));
      } catch (err) {
        if (isAlreadyExists(err)) Object.assign(err as object, { alreadyExists: true });
        throw err;
      }
    },
    get: async (name) => {
      try {
        return asRevision(await client.get(Resources.ControllerRevision, namespace, name));
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    update: async (r) =>
      asRevision(await client.update(Resources.ControllerRevision, r as unknown as KubeObject)),
    delete: async (r) => {
      try {
        await client.delete(Resources.ControllerRevision, namespace, r.metadata?.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  };
}
