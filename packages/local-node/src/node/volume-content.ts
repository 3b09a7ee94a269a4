import type {
  ConfigMap,
  DownwardAPIVolumeFile,
  KeyToPath,
  Secret,
  Volume,
  VolumeProjection,
} from 'kubernetes-types/core/v1.js';
import type { BoundPod } from './bound-pod.ts';
import type { EnvSources, NodeEnvFacts } from './container-env.ts';
import { podFieldValue, resourceFieldValue } from './container-env.ts';
import { effectiveSecurityContext } from './security-context.ts';
import type { TokenRequestSpec } from './service-account-tokens.ts';

/** One file of an API-data volume: its bytes, mode and (when kubelet sets one) owner. */
export interface VolumeFile {
  data: Buffer;
  mode: number;
  uid?: number;
}

/** Where projected ServiceAccount tokens come from (kubelet's token manager). */
export interface TokenSource {
  serviceAccountToken(namespace: string, serviceAccount: string, spec: TokenRequestSpec): Promise<string>;
}

/**
 * kubelet's FsUserFrom: the runAsUser every container of the pod runs as, or undefined when one
 * sets none or two differ.
 */
export function podFsUser(pod: BoundPod): number | undefined {
  let user: number | undefined;
  for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    const u = effectiveSecurityContext(pod, c).runAsUser;
    if (u === undefined || (user !== undefined && u !== user)) return undefined;
    user = u;
  }
  return user;
}

/** Files of an API-data volume by relative path. */
export type VolumeFiles = Map<string, VolumeFile>;

/** kubelet's default mode of configMap, secret, downwardAPI and projected files. */
const DEFAULT_MODE = 0o644;

/** A volume that cannot be set up yet (kubelet's `MountVolume.SetUp failed`). */
export class VolumeSetUpError extends Error {}

/** The keys of a ConfigMap or Secret as bytes (ConfigMap data and binaryData; Secret data decoded). */
function keysOf(obj: ConfigMap | Secret, secret: boolean): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  if (secret) {
    for (const [k, v] of Object.entries((obj as Secret).stringData ?? {})) out.set(k, Buffer.from(v));
    for (const [k, v] of Object.entries(obj.data ?? {})) out.set(k, Buffer.from(v, 'base64'));
  } else {
    for (const [k, v] of Object.entries((obj as ConfigMap).data ?? {})) out.set(k, Buffer.from(v));
    for (const [k, v] of Object.entries((obj as ConfigMap).binaryData ?? {}))
      out.set(k, Buffer.from(v, 'base64'));
  }
  return out;
}

/** The files of one ConfigMap or Secret source, with kubelet's messages for what is missing. */
async function keyFiles(
  kind: 'configmap' | 'secret',
  obj: ConfigMap | Secret | undefined,
  name: string,
  items: KeyToPath[] | undefined,
  optional: boolean,
  mode: number,
  out: VolumeFiles,
): Promise<void> {
  if (!obj) {
    if (optional) return;
    throw new VolumeSetUpError(`${kind} "${name}" not found`);
  }
  const keys = keysOf(obj, kind === 'secret');
  if (!items?.length) {
    for (const [k, data] of keys) out.set(k, { data, mode });
    return;
  }
  for (const item of items) {
    const data = keys.get(item.key);
    if (!data) {
      if (optional) continue;
      throw new VolumeSetUpError(
        kind === 'configmap'
          ? `configmap references non-existent config key: ${item.key}`
          : `references non-existent secret key: ${item.key}`,
      );
    }
    out.set(item.path, { data, mode: item.mode ?? mode });
  }
}

function downwardFiles(
  pod: BoundPod,
  items: DownwardAPIVolumeFile[],
  mode: number,
  facts: NodeEnvFacts,
  out: VolumeFiles,
): void {
  for (const item of items) {
    let value = '';
    if (item.fieldRef) value = podFieldValue(pod, item.fieldRef.fieldPath, facts);
    else if (item.resourceFieldRef) {
      const container = pod.spec.containers.find((c) => c.name === item.resourceFieldRef!.containerName);
      if (!container)
        throw new VolumeSetUpError(`container ${item.resourceFieldRef.containerName} not found`);
      value = resourceFieldValue(pod, container, item.resourceFieldRef, facts);
    }
    out.set(item.path, { data: Buffer.from(value), mode: item.mode ?? mode });
  }
}

async function projection(
  pod: BoundPod,
  source: VolumeProjection,
  mode: number,
  facts: NodeEnvFacts,
  sources: EnvSources & Partial<TokenSource>,
  out: VolumeFiles,
): Promise<void> {
  const ns = pod.metadata.namespace;
  if (source.serviceAccountToken) {
    const t = source.serviceAccountToken;
    if (!sources.serviceAccountToken) throw new VolumeSetUpError('this node cannot request tokens');
    let token: string;
    try {
      token = await sources.serviceAccountToken(ns, pod.spec.serviceAccountName || 'default', {
        ...(t.audience ? { audiences: [t.audience] } : {}),
        expirationSeconds: t.expirationSeconds ?? 3600,
        boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: pod.metadata.name, uid: pod.metadata.uid },
      });
    } catch (err) {
      throw new VolumeSetUpError(`failed to fetch token: ${(err as Error).message}`);
    }
    // kubelet: with an fsUser or fsGroup the token is readable by its owner only
    const fsUser = podFsUser(pod);
    const owned = fsUser !== undefined || pod.spec.securityContext?.fsGroup !== undefined;
    out.set(t.path, { data: Buffer.from(token), mode: owned ? 0o600 : mode, uid: fsUser });
  } else if (source.configMap) {
    const { name = '', items, optional = false } = source.configMap;
    await keyFiles('configmap', await sources.configMap(ns, name), name, items, optional, mode, out);
  } else if (source.secret) {
    const { name = '', items, optional = false } = source.secret;
    await keyFiles('secret', await sources.secret(ns, name), name, items, optional, mode, out);
  } else if (source.downwardAPI) downwardFiles(pod, source.downwardAPI.items ?? [], mode, facts, out);
  else
    throw new VolumeSetUpError(
      'only configMap, secret, downwardAPI and serviceAccountToken projections are supported by this node',
    );
}

/**
 * The files kubelet writes for an API-data volume (configMap, secret, downwardAPI, projected with
 * serviceAccountToken sources), or
 * undefined for other volume kinds. Missing objects or keys that are not optional throw a
 * VolumeSetUpError with kubelet's message.
 */
export async function apiVolumeFiles(
  pod: BoundPod,
  volume: Volume,
  facts: NodeEnvFacts,
  sources: EnvSources & Partial<TokenSource>,
): Promise<VolumeFiles | undefined> {
  const out: VolumeFiles = new Map();
  const ns = pod.metadata.namespace;
  if (volume.configMap) {
    const { name = '', items, optional = false, defaultMode = DEFAULT_MODE } = volume.configMap;
    await keyFiles('configmap', await sources.configMap(ns, name), name, items, optional, defaultMode, out);
  } else if (volume.secret) {
    const { secretName = '', items, optional = false, defaultMode = DEFAULT_MODE } = volume.secret;
    await keyFiles(
      'secret',
      await sources.secret(ns, secretName),
      secretName,
      items,
      optional,
      defaultMode,
      out,
    );
  } else if (volume.downwardAPI)
    downwardFiles(
      pod,
      volume.downwardAPI.items ?? [],
      volume.downwardAPI.defaultMode ?? DEFAULT_MODE,
      facts,
      out,
    );
  else if (volume.projected) {
    const mode = volume.projected.defaultMode ?? DEFAULT_MODE;
    for (const source of volume.projected.sources ?? [])
      await projection(pod, source, mode, facts, sources, out);
  } else return undefined;
  return out;
}
