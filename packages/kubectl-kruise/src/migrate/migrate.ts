import { setTimeout as sleep } from 'node:timers/promises';
import { KruiseResources } from '@kruise/api/kinds';
import type { ResourceRef } from '@kruise/kube-compat/resource-ref';
import type { KubeClient, KubeObject } from '@kruise/runtime/kube/client';
import { isNotFound } from '@kruise/runtime/kube/errors';
import { deploymentToCloneSet } from './convert.ts';
import { type MigrationProgress, type MigrationSide, migrationStep } from './step.ts';

/** apps/v1 Deployment. */
export const Deployments: ResourceRef = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  kind: 'Deployment',
  namespaced: true,
};

/** The calls a migration makes. */
export type MigrateClient = Pick<KubeClient, 'get' | 'create' | 'mergePatch'>;

async function getOrFail(client: MigrateClient, r: ResourceRef, namespace: string, name: string) {
  try {
    return await client.get(r, namespace, name);
  } catch (err) {
    throw new Error(`failed to get ${r.kind} ${namespace}/${name}: ${(err as Error).message}`);
  }
}

/**
 * `migrate --create`: a CloneSet from the Deployment (kruise-tools' conversion), refused when the
 * CloneSet exists already.
 */
export async function createCloneSetFromDeployment(
  client: MigrateClient,
  namespace: string,
  src: string,
  dst: string,
  copyReplicas: boolean,
): Promise<KubeObject> {
  try {
    await client.get(KruiseResources.CloneSet, namespace, dst);
    throw new Error(`cloneset ${namespace}/${dst} already exists`);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const deployment = await getOrFail(client, Deployments, namespace, src);
  return client.create(KruiseResources.CloneSet, deploymentToCloneSet(deployment, dst, copyReplicas));
}

/** What a replica migration is asked to do. */
export interface MigrationOptions {
  namespace: string;
  src: string;
  dst: string;
  /** Replicas to move (default: all the Deployment's). */
  replicas?: number;
  maxSurge: number;
  timeoutSeconds?: number;
  out: (line: string) => void;
  pollMs?: number;
  signal?: AbortSignal;
}

const side = (obj: KubeObject): MigrationSide => ({
  generation: obj.metadata?.generation ?? 0,
  observedGeneration: obj.status?.observedGeneration ?? 0,
  replicas: obj.spec?.replicas ?? 1,
  availableReplicas: obj.status?.availableReplicas ?? 0,
});

/**
 * Moves replicas from a Deployment to a CloneSet, `maxSurge` at a time: the CloneSet grows first,
 * the Deployment shrinks once the CloneSet's pods are all available (kruise-tools' migration),
 * with kruise-tools' progress lines. Returns the replicas moved.
 */
export async function migrateReplicas(client: MigrateClient, o: MigrationOptions): Promise<number> {
  if (o.replicas !== undefined && o.replicas <= 0) throw new Error(`invalid replicas ${o.replicas}`);
  if (o.maxSurge <= 0) throw new Error('maxSurge must be integar more than zore');
  const srcName = `Deployment/${o.src}`;
  const dstName = `CloneSet/${o.dst}`;
  let deployment = await getOrFail(client, Deployments, o.namespace, o.src);
  let cloneSet = await getOrFail(client, KruiseResources.CloneSet, o.namespace, o.dst);
  const total = o.replicas ?? deployment.spec?.replicas ?? 1;
  const deadline = o.timeoutSeconds ? Date.now() + o.timeoutSeconds * 1000 : Number.POSITIVE_INFINITY;
  const done: MigrationProgress = { srcMigrated: 0, dstMigrated: 0 };
  for (;;) {
    const step = migrationStep(side(deployment), side(cloneSet), done, total, o.maxSurge);
    if (step.action === 'done') break;
    if (Date.now() > deadline) throw new Error('failed to migrate: task timeout exceeded');
    if (step.action === 'scale-out') {
      await client.mergePatch(KruiseResources.CloneSet, o.namespace, o.dst, {
        spec: { replicas: side(cloneSet).replicas + step.count },
      });
      done.dstMigrated += step.count;
    } else if (step.action === 'scale-in') {
      await client.mergePatch(Deployments, o.namespace, o.src, {
        spec: { replicas: side(deployment).replicas - step.count },
      });
      done.srcMigrated += step.count;
    }
    if (step.action !== 'wait')
      o.out(
        `Migration progress: ${srcName} scale in ${done.srcMigrated}, ${dstName} scale out ${done.dstMigrated}`,
      );
    else await sleep(o.pollMs ?? 1000, undefined, o.signal ? { signal: o.signal } : undefined);
    deployment = await getOrFail(client, Deployments, o.namespace, o.src);
    cloneSet = await getOrFail(client, KruiseResources.CloneSet, o.namespace, o.dst);
  }
  o.out(`Successfully migrated ${done.dstMigrated} replicas from ${srcName} to ${dstName}`);
  return done.dstMigrated;
}
