import { DEFAULT_DAEMON_CONFIG_NAMESPACE, type ReferenceObject } from '@kruise/api';
import type { KubeClient, KubeObject } from '@kruise/runtime/kube/client';
import { isNotFound } from '@kruise/runtime/kube/errors';
import { Resources } from '@kruise/runtime/kube/resources';
import type { Logger } from '@kruise/runtime/log/logger';
import { type Credential, DockerKeyring, InvalidPullSecretError } from '../auth/keyring.ts';

/** How long a read pull secret (or its absence) is reused before it is read again. */
const SECRET_TTL_MS = 5 * 60_000;

/** Told when a named pull secret cannot be read (its key and why — never its contents). */
export type InvalidSecretListener = (secretKey: string, secretName: string, reason: string) => void;

/**
 * Registry credentials for pulls: reads the pull secrets a NodeImage names (only from the daemon's
 * config namespace), caches each for five minutes, and matches them to an image through a
 * kubelet-style keyring. Each pull worker is handed `forImage(...)` bound to its image's secrets.
 */
export class PullCredentials {
  private readonly client: KubeClient;
  private readonly log: Logger;
  private readonly configNamespace: string;
  private readonly secrets = new Map<string, { at: number; secret: KubeObject | undefined }>();

  constructor(client: KubeClient, log: Logger, configNamespace = DEFAULT_DAEMON_CONFIG_NAMESPACE) {
    this.client = client;
    this.log = log;
    this.configNamespace = configNamespace;
  }

  /**
   * The credentials of `refs` that apply to `image`, most specific first; an unreadable secret is
   * skipped (and reported to `onInvalid`), as kubelet skips it.
   */
  async forImage(
    image: string,
    refs: readonly ReferenceObject[],
    onInvalid: InvalidSecretListener,
  ): Promise<Credential[]> {
    if (refs.length === 0) return [];
    const keyring = new DockerKeyring();
    const ns = this.configNamespace;
    for (const ref of refs) {
      if (ref.namespace !== ns || !ref.name) {
        this.log.warn(
          { secret: `${ref.namespace}/${ref.name}` },
          'ignoring a pull secret outside the daemon config namespace',
        );
        continue;
      }
      const secret = await this.secret(ns, ref.name);
      if (!secret) continue;
      try {
        keyring.addSecret(secret);
      } catch (err) {
        if (!(err instanceof InvalidPullSecretError)) throw err;
        this.log.warn(
          { secret: `${ns}/${ref.name}`, err: err.message },
          'ignoring an unreadable pull secret',
        );
        onInvalid(`${ns}/${ref.name}`, ref.name, err.message);
      }
    }
    return keyring.lookup(image);
  }

  private async secret(namespace: string, name: string): Promise<KubeObject | undefined> {
    const key = `${namespace}/${name}`;
    const cached = this.secrets.get(key);
    if (cached && Date.now() - cached.at < SECRET_TTL_MS) return cached.secret;
    try {
      const secret = await this.client.get(Resources.Secret, namespace, name);
      this.secrets.set(key, { at: Date.now(), secret });
      return secret;
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.log.warn({ secret: key }, 'pull secret not found');
      this.secrets.set(key, { at: Date.now(), secret: undefined });
      return undefined;
    }
  }
}
