import { type KubeClient, type KubeObject, Resources, unlessNotFound } from '@kruise/runtime';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';

/** The ConfigMap (in the Kruise namespace) holding Kruise's configuration: whitelists by key. */
export const KRUISE_CONFIGURATION_NAME = 'kruise-configuration';

/**
 * The `kruise-configuration` ConfigMap of the Kruise namespace, read from the API (upstream reads
 * it at each use); undefined when there is none.
 * @throws the API's error for anything but NotFound.
 */
export function readKruiseConfiguration(
  client: KubeClient,
  kruiseNamespace: string,
): Promise<ConfigMap | undefined> {
  return unlessNotFound(
    client.get<ConfigMap & KubeObject>(Resources.ConfigMap, kruiseNamespace, KRUISE_CONFIGURATION_NAME),
  );
}
