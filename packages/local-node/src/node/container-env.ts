import { splitSubscriptedPath } from '@kruise/api';
import { parseQuantity, quantityMilliValue, quantityValue } from '@kruise/kube-compat';
import type {
  ConfigMap,
  Container,
  ResourceFieldSelector,
  ResourceRequirements,
  Secret,
} from 'kubernetes-types/core/v1.js';
import type { BoundPod } from './bound-pod.ts';
import { expand } from './env-expansion.ts';

/** Where env values from ConfigMaps and Secrets come from (undefined: the object does not exist). */
export interface EnvSources {
  configMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  secret(namespace: string, name: string): Promise<Secret | undefined>;
}

/** What the node knows that env values can name. */
export interface NodeEnvFacts {
  hostIP: string;
  /** The pod's IP (its sandbox's; the host's for a host-network pod); unset, the host's. */
  podIP?: string;
  /** The node's allocatable resources: the limits of a container that sets none (downward API). */
  allocatable: Record<string, string>;
  /** The services' variables (kubelet's serviceEnv: the `kubernetes` Service's here). */
  serviceEnv?: Map<string, string>;
}

/** A container that cannot be configured yet (kubelet's `CreateContainerConfigError`). */
export class ContainerConfigError extends Error {
  readonly reason = 'CreateContainerConfigError';
}

/** An env warning kubelet records as an event (invalid names skipped from envFrom). */
export type EnvWarning = { reason: string; message: string };

const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** apimachinery's FormatMap: `key="value"` lines in key order. */
function formatMap(m: Record<string, string> | undefined): string {
  return Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${JSON.stringify(m![k])}`)
    .join('\n');
}

/** kubelet's podFieldSelectorRuntimeValue. */
export function podFieldValue(pod: BoundPod, fieldPath: string, facts: NodeEnvFacts): string {
  const m = pod.metadata;
  switch (fieldPath) {
    case 'spec.nodeName':
      return pod.spec.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec.serviceAccountName ?? '';
    case 'status.hostIP':
    case 'status.hostIPs':
      return facts.hostIP;
    case 'status.podIP':
    case 'status.podIPs':
      return facts.podIP ?? facts.hostIP;
    case 'metadata.name':
      return m.name;
    case 'metadata.namespace':
      return m.namespace;
    case 'metadata.uid':
      return m.uid;
    case 'metadata.labels':
      return formatMap(m.labels);
    case 'metadata.annotations':
      return formatMap(m.annotations);
  }
  const split = splitSubscriptedPath(fieldPath);
  if (split?.path === 'metadata.labels') return m.labels?.[split.subscript] ?? '';
  if (split?.path === 'metadata.annotations') return m.annotations?.[split.subscript] ?? '';
  throw new ContainerConfigError(`unsupported fieldPath: ${fieldPath}`);
}

/** kubelet's containerResourceRuntimeValue, limits defaulted to the node's allocatable. */
export function resourceFieldValue(
  pod: BoundPod,
  container: Container,
  ref: ResourceFieldSelector,
  facts: NodeEnvFacts,
): string {
  const target = ref.containerName
    ? [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])].find(
        (c) => c.name === ref.containerName,
      )
    : container;
  if (!target) throw new ContainerConfigError(`container ${ref.containerName} not found`);
  const [kind, resource = ''] = ref.resource.split(/\.(.*)/s) as [string, string?];
  const res: ResourceRequirements = target.resources ?? {};
  let text: string | undefined;
  if (kind === 'limits') text = res.limits?.[resource] ?? facts.allocatable[resource];
  else if (kind === 'requests') text = res.requests?.[resource];
  const supported =
    ['cpu', 'memory', 'ephemeral-storage'].includes(resource) || resource.startsWith('hugepages-');
  if ((kind !== 'limits' && kind !== 'requests') || !supported)
    throw new ContainerConfigError(`unsupported container resource : ${ref.resource}`);
  const q = parseQuantity(String(text ?? '0')) ?? parseQuantity('0')!;
  const divisor = parseQuantity(String(ref.divisor ?? '1')) ?? parseQuantity('1')!;
  const [num, den] =
    resource === 'cpu'
      ? [quantityMilliValue(q), quantityMilliValue(divisor)]
      : [quantityValue(q), quantityValue(divisor)];
  if (den === 0n) return '0';
  return String(Math.ceil(Number(num) / Number(den)));
}

/**
 * The container's environment as kubelet's makeEnvironmentVariables resolves it at each start:
 * `envFrom` (ConfigMaps and Secrets, with prefix; invalid names skipped with a warning), then `env`
 * in order — literal values with `$(VAR)` expanded from the variables before them, fieldRef,
 * resourceFieldRef, configMapKeyRef and secretKeyRef; then the services' variables the container
 * does not set itself (`$(VAR)` sees them too). A missing ConfigMap, Secret or key that is not
 * optional throws a ContainerConfigError with kubelet's message.
 */
export async function resolveEnv(
  pod: BoundPod,
  container: Container,
  facts: NodeEnvFacts,
  sources: EnvSources,
  warn: (w: EnvWarning) => void = () => undefined,
): Promise<Map<string, string>> {
  const ns = pod.metadata.namespace;
  const configMaps = new Map<string, ConfigMap | undefined>();
  const secrets = new Map<string, Secret | undefined>();
  const configMap = async (name: string, optional: boolean) => {
    if (!configMaps.has(name)) configMaps.set(name, await sources.configMap(ns, name));
    const cm = configMaps.get(name);
    if (!cm && !optional) throw new ContainerConfigError(`configmap "${name}" not found`);
    return cm;
  };
  const secret = async (name: string, optional: boolean) => {
    if (!secrets.has(name)) secrets.set(name, await sources.secret(ns, name));
    const s = secrets.get(name);
    if (!s && !optional) throw new ContainerConfigError(`secret "${name}" not found`);
    return s;
  };
  const secretData = (s: Secret) => {
    const out: Record<string, string> = { ...(s.stringData ?? {}) };
    for (const [k, v] of Object.entries(s.data ?? {})) out[k] = Buffer.from(v, 'base64').toString('utf8');
    return out;
  };
  const env = new Map<string, string>();
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    if (!ref?.name) continue;
    const isConfigMap = from.configMapRef !== undefined;
    const obj = isConfigMap
      ? await configMap(ref.name, ref.optional === true)
      : await secret(ref.name, ref.optional === true);
    if (!obj) continue;
    const data = isConfigMap ? ((obj as ConfigMap).data ?? {}) : secretData(obj as Secret);
    const invalid: string[] = [];
    for (const [k, v] of Object.entries(data)) {
      const name = (from.prefix ?? '') + k;
      if (ENV_VAR_NAME.test(name)) env.set(name, v);
      else invalid.push(name);
    }
    if (invalid.length)
      warn({
        reason: 'InvalidEnvironmentVariableNames',
        message: `Keys [${invalid.sort().join(', ')}] from the EnvFrom ${isConfigMap ? 'configMap' : 'secret'} ${ns}/${ref.name} were skipped since they are considered invalid environment variable names.`,
      });
  }
  const services = facts.serviceEnv ?? new Map<string, string>();
  for (const e of container.env ?? []) {
    let value = e.value ?? '';
    const from = e.valueFrom;
    if (value !== '') value = expand(value, (name) => env.get(name) ?? services.get(name));
    else if (from?.fieldRef) value = podFieldValue(pod, from.fieldRef.fieldPath, facts);
    else if (from?.resourceFieldRef) value = resourceFieldValue(pod, container, from.resourceFieldRef, facts);
    else if (from?.configMapKeyRef) {
      const { name = '', key, optional = false } = from.configMapKeyRef;
      const cm = await configMap(name, optional);
      const v = cm?.data?.[key];
      if (v === undefined) {
        if (optional) continue;
        throw new ContainerConfigError(`couldn't find key ${key} in ConfigMap ${ns}/${name}`);
      }
      value = v;
    } else if (from?.secretKeyRef) {
      const { name = '', key, optional = false } = from.secretKeyRef;
      const s = await secret(name, optional);
      const v = s ? secretData(s)[key] : undefined;
      if (v === undefined) {
        if (optional) continue;
        throw new ContainerConfigError(`couldn't find key ${key} in Secret ${ns}/${name}`);
      }
      value = v;
    }
    env.set(e.name, value);
  }
  for (const [k, v] of services) if (!env.has(k)) env.set(k, v);
  return env;
}
