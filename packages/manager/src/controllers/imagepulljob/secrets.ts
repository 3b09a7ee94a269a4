import { randomBytes } from 'node:crypto';
import {
  type ImagePullJob,
  type ReferenceObject,
  SECRET_MODE_ANNOTATION,
  SECRET_MODE_BATCH,
  SECRET_REFERENCES_ANNOTATION,
  SECRET_SOURCE_KEY_ANNOTATION,
} from '@kruise/api';
import { isNotFound, type KubeClient, type Logger, Resources, retryOnConflict } from '@kruise/runtime';
import type { Secret } from 'kubernetes-types/core/v1.js';

/** Reads secrets from the informer caches. */
export interface SecretCache {
  /** A source secret in a job's namespace. */
  source(namespace: string, name: string): Secret | undefined;
  /** The shared copy of `ns/name` in the config namespace. */
  copyOf(sourceKey: string): Secret | undefined;
  /** Every copy in the config namespace. */
  copies(): Secret[];
}

const refsOf = (secret: Secret): string[] =>
  (secret.metadata?.annotations?.[SECRET_REFERENCES_ANNOTATION] ?? '').split(',').filter(Boolean);

/**
 * Shared copies of jobs' pull secrets in the daemon's config namespace (the daemon may read only
 * there): one copy per source secret, listing the jobs using it; data kept in step with the source;
 * deleted when the last job lets go.
 */
export class SecretSync {
  private readonly client: KubeClient;
  private readonly cache: SecretCache;
  private readonly configNamespace: string;
  private readonly log: Logger;

  constructor(client: KubeClient, cache: SecretCache, configNamespace: string, log: Logger) {
    this.client = client;
    this.cache = cache;
    this.configNamespace = configNamespace;
    this.log = log;
  }

  /** Ensures copies for the job's pull secrets; returns the references its NodeImage tags carry. */
  async sync(job: ImagePullJob): Promise<ReferenceObject[]> {
    const ns = job.metadata?.namespace ?? '';
    const jobKey = `${ns}/${job.metadata?.name}`;
    const names = job.spec?.pullSecrets ?? [];
    if (names.length === 0) return [];
    if (ns === this.configNamespace) return names.map((name) => ({ namespace: ns, name }));
    const configNs = await this.client
      .get(Resources.Namespace, undefined, this.configNamespace)
      .catch((err) => {
        if (isNotFound(err)) throw new Error(`namespace ${this.configNamespace} not found`);
        throw err;
      });
    if (configNs.metadata?.deletionTimestamp)
      throw new Error(`namespace ${this.configNamespace} is terminating`);
    const refs: ReferenceObject[] = [];
    for (const name of names) {
      const source = this.cache.source(ns, name);
      if (!source) {
        this.log.warn({ secret: `${ns}/${name}` }, 'pull secret not found, skipping it');
        continue;
      }
      const copy = await this.ensureCopy(`${ns}/${name}`, source, jobKey);
      refs.push({ namespace: this.configNamespace, name: copy, mode: SECRET_MODE_BATCH });
    }
    return refs;
  }

  private async ensureCopy(sourceKey: string, source: Secret, jobKey: string): Promise<string> {
    const existing = this.cache.copyOf(sourceKey);
    const annotationsFor = (refs: string[]) => ({
      ...(source.metadata?.annotations ?? {}),
      [SECRET_SOURCE_KEY_ANNOTATION]: sourceKey,
      [SECRET_REFERENCES_ANNOTATION]: [...new Set(refs)].sort().join(','),
      [SECRET_MODE_ANNOTATION]: SECRET_MODE_BATCH,
    });
    if (!existing) {
      const name = `${source.metadata?.name}-${randomBytes(3).toString('hex')}`;
      await this.client.create(Resources.Secret, {
        metadata: {
          name,
          namespace: this.configNamespace,
          labels: source.metadata?.labels,
          annotations: annotationsFor([jobKey]),
        },
        type: source.type,
        data: source.data ?? {},
      });
      return name;
    }
    const name = existing.metadata?.name as string;
    const refs = refsOf(existing);
    const wanted = annotationsFor([...refs, jobKey]);
    const sameData = JSON.stringify(existing.data ?? {}) === JSON.stringify(source.data ?? {});
    if (
      refs.includes(jobKey) &&
      sameData &&
      existing.metadata?.annotations?.[SECRET_REFERENCES_ANNOTATION] === wanted[SECRET_REFERENCES_ANNOTATION]
    )
      return name;
    await retryOnConflict(async () => {
      const fresh = await this.client.get<Secret>(Resources.Secret, this.configNamespace, name);
      await this.client.update(Resources.Secret, {
        ...fresh,
        metadata: {
          ...fresh.metadata,
          annotations: { ...fresh.metadata?.annotations, ...annotationsFor([...refsOf(fresh), jobKey]) },
        },
        data: source.data ?? {},
      });
    });
    return name;
  }

  /** Removes the job from every copy it no longer uses (all of them when `keep` is empty); deletes unused copies. */
  async release(jobKey: string, keep: Set<string> = new Set()): Promise<void> {
    for (const copy of this.cache.copies()) {
      const sourceKey = copy.metadata?.annotations?.[SECRET_SOURCE_KEY_ANNOTATION];
      if (!sourceKey || keep.has(sourceKey) || !refsOf(copy).includes(jobKey)) continue;
      const name = copy.metadata?.name as string;
      try {
        await retryOnConflict(async () => {
          const fresh = await this.client.get<Secret>(Resources.Secret, this.configNamespace, name);
          const left = refsOf(fresh).filter((r) => r !== jobKey);
          if (left.length === 0) {
            await this.client.delete(Resources.Secret, this.configNamespace, name, {
              preconditions: { resourceVersion: fresh.metadata?.resourceVersion },
            });
            return;
          }
          await this.client.update(Resources.Secret, {
            ...fresh,
            metadata: {
              ...fresh.metadata,
              annotations: {
                ...fresh.metadata?.annotations,
                [SECRET_REFERENCES_ANNOTATION]: left.sort().join(','),
              },
            },
          });
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
}
