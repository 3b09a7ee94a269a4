import type { KubeObject } from '@kruise/runtime/kube/client';
import { Resources } from '@kruise/runtime/kube/resources';
import type { CommandContext } from './command.ts';
import { kindNamed, namesBuiltInWorkload } from './kinds.ts';

/** A container environment variable. */
export type EnvVar = { name: string; value?: string; valueFrom?: Record<string, any> };

const SOURCES = {
  secret: { resource: Resources.Secret, ref: 'secretKeyRef' },
  configmap: { resource: Resources.ConfigMap, ref: 'configMapKeyRef' },
} as const;

const SOURCE_NAMES: Record<string, keyof typeof SOURCES> = {
  secret: 'secret',
  secrets: 'secret',
  configmap: 'configmap',
  configmaps: 'configmap',
  cm: 'configmap',
};

/** kubectl's `keyToEnvName`: every character outside [a-zA-Z0-9_] becomes `_`, upper-cased. */
export const keyToEnvName = (key: string) => key.replace(/[^a-zA-Z0-9_]/g, '_').toUpperCase();

/**
 * The variables `--from=secret/NAME|configmap/NAME` brings in, as kubectl's `set env` makes them:
 * one per key of the object's `data` (only `--keys` when given, keys in sorted order), each a
 * `valueFrom` reference to that key, named by {@link keyToEnvName}.
 */
export async function envFrom(ctx: CommandContext, from: string, keys: readonly string[]): Promise<EnvVar[]> {
  const slash = from.indexOf('/');
  const type = (slash < 0 ? from : from.slice(0, slash)).toLowerCase();
  const name = slash < 0 ? '' : from.slice(slash + 1);
  const source = SOURCE_NAMES[type];
  if (!source) {
    if (kindNamed(type) || namesBuiltInWorkload(type))
      throw new Error('unsupported resource specified in --from');
    throw new Error(`the server doesn't have a resource type "${type}"`);
  }
  if (!name) throw new Error('resource(s) were provided, but no name was specified');
  const { resource, ref } = SOURCES[source];
  const obj = await ctx.client().get(resource, ctx.namespace(), name);
  return Object.keys((obj.data as Record<string, string> | undefined) ?? {})
    .sort()
    .filter((key) => keys.length === 0 || keys.includes(key))
    .map((key) => ({ name: keyToEnvName(key), valueFrom: { [ref]: { name, key } } }));
}

/** A store of the Secrets and ConfigMaps read while resolving, so each is read once (kubectl's resourceStore). */
export type ResourceStore = Map<string, Promise<KubeObject>>;

/**
 * The value a `valueFrom` reference stands for (`--list --resolve`), with kubectl's errors: the
 * key of a Secret (decoded) or ConfigMap, or a field of the object's metadata.
 */
export async function resolveEnvValue(
  ctx: CommandContext,
  store: ResourceStore,
  from: Record<string, any>,
  object: KubeObject,
): Promise<string> {
  const read = (kind: keyof typeof SOURCES, name: string) => {
    const key = `${kind}/${name}`;
    if (!store.has(key)) store.set(key, ctx.client().get(SOURCES[kind].resource, ctx.namespace(), name));
    return store.get(key) as Promise<KubeObject>;
  };
  if (from.secretKeyRef) {
    const { name, key } = from.secretKeyRef;
    const value = ((await read('secret', name)).data as Record<string, string> | undefined)?.[key];
    if (value === undefined) throw new Error(`key ${key} not found in secret ${name}`);
    return Buffer.from(value, 'base64').toString('utf8');
  }
  if (from.configMapKeyRef) {
    const { name, key } = from.configMapKeyRef;
    const value = ((await read('configmap', name)).data as Record<string, string> | undefined)?.[key];
    if (value === undefined) throw new Error(`key ${key} not found in config map ${name}`);
    return value;
  }
  const path = from.fieldRef?.fieldPath;
  if (path === 'metadata.name') return object.metadata?.name ?? '';
  if (path === 'metadata.namespace') return object.metadata?.namespace ?? '';
  throw new Error('invalid valueFrom');
}
