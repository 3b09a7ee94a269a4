import { setTimeout as sleep } from 'node:timers/promises';
import { type AdmissionHook, generatedName } from '../api/context.ts';
import { forbidden } from '../errors.ts';
import type { KubeObject } from '../registry/types.ts';
import type { Store } from '../store/store.ts';

/** The account a pod without `spec.serviceAccountName` runs as. */
export const DEFAULT_SERVICE_ACCOUNT = 'default';
/** Where the API credentials appear in every container. */
export const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** The prefix of the projected volume that carries them. */
export const API_ACCESS_VOLUME_PREFIX = 'kube-api-access-';
/** The ConfigMap with the API server's CA in every namespace. */
export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt';
/** The token lifetime the volume asks for (the API server extends such pod-bound tokens). */
const TOKEN_EXPIRATION_SECONDS = 3607;
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** The projected volume kube-apiserver adds: a bound token, the cluster CA and the namespace. */
export function apiAccessVolume(name: string): KubeObject {
  return {
    name,
    projected: {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: ROOT_CA_CONFIG_MAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        {
          downwardAPI: {
            items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
          },
        },
      ],
    },
  };
}

/** Whether the token is mounted: the pod's choice, else the account's, else yes. */
function shouldAutomount(sa: KubeObject, pod: KubeObject): boolean {
  if (typeof pod.spec?.automountServiceAccountToken === 'boolean')
    return pod.spec.automountServiceAccountToken;
  if (typeof sa.automountServiceAccountToken === 'boolean') return sa.automountServiceAccountToken;
  return true;
}

/** Mounts the API access volume read-only in every init container and container without a mount at the path. */
function mountServiceAccountToken(pod: KubeObject): void {
  const spec = pod.spec;
  spec.volumes ??= [];
  const existing = spec.volumes.find((v: KubeObject) =>
    String(v?.name ?? '').startsWith(API_ACCESS_VOLUME_PREFIX),
  );
  const name: string = existing?.name ?? generatedName(API_ACCESS_VOLUME_PREFIX);
  let needed = false;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if (!c || typeof c !== 'object') continue;
    c.volumeMounts ??= [];
    if (c.volumeMounts.some((m: KubeObject) => m?.mountPath === SERVICE_ACCOUNT_MOUNT_PATH)) continue;
    c.volumeMounts.push({ name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH });
    needed = true;
  }
  if (!existing && needed) spec.volumes.push(apiAccessVolume(name));
  if (!spec.volumes.length) delete spec.volumes;
}

/** The name kube-apiserver's admission errors give a pod: its name, or its generateName before one is made. */
function admittedName(pod: KubeObject, name: string): string {
  const prefix = pod.metadata?.generateName;
  if (prefix && name.startsWith(prefix) && name.length === prefix.length + 5) return prefix;
  return name || 'Unknown';
}

/**
 * The ServiceAccount, looked up as the admission plugin does: once, or for `default` (which the
 * ServiceAccount controller creates with the namespace) up to ten times 100–200 ms apart.
 */
async function lookUpServiceAccount(
  store: Store,
  namespace: string,
  name: string,
): Promise<KubeObject | undefined> {
  const attempts = name === DEFAULT_SERVICE_ACCOUNT ? 10 : 1;
  const interval = 100 + Math.floor(Math.random() * 100);
  for (let i = 0; i < attempts; i++) {
    if (i) await sleep(interval);
    const sa = store.get('/serviceaccounts', namespace, name)?.obj;
    if (sa) return sa;
  }
  return undefined;
}

/**
 * kube-apiserver's ServiceAccount admission plugin, on pod creation (mutating, before webhooks):
 * a pod without `spec.serviceAccountName` runs as `default`; the account must exist; unless the
 * pod or the account turns `automountServiceAccountToken` off, a projected `kube-api-access-xxxxx`
 * volume is mounted at /var/run/secrets/kubernetes.io/serviceaccount in every container; a pod
 * without imagePullSecrets gets the account's. Mirror pods may not name an account.
 */
export function serviceAccountAdmission(store: Store): AdmissionHook {
  return async (req) => {
    if (req.phase !== 'mutating' || req.operation !== 'CREATE' || req.subresource) return undefined;
    if (req.type.group !== '' || req.type.plural !== 'pods') return undefined;
    const pod = req.object;
    if (!pod || typeof pod.spec !== 'object' || pod.spec === null) return undefined;
    const podName = admittedName(pod, req.name);
    if (pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) {
      if (pod.spec.serviceAccountName)
        throw forbidden(`pods "${podName}" is forbidden: a mirror pod may not reference service accounts`, {
          name: podName,
          kind: 'pods',
        });
      return pod;
    }
    // v1's deprecated `serviceAccount` stands for the name when `serviceAccountName` is empty.
    if (!pod.spec.serviceAccountName && typeof pod.spec.serviceAccount === 'string')
      pod.spec.serviceAccountName = pod.spec.serviceAccount;
    if (!pod.spec.serviceAccountName) pod.spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
    const name: string = pod.spec.serviceAccountName;
    const sa = await lookUpServiceAccount(store, req.namespace, name);
    if (!sa)
      throw forbidden(
        `pods "${podName}" is forbidden: error looking up service account ${req.namespace}/${name}: serviceaccount "${name}" not found`,
        { name: podName, kind: 'pods' },
      );
    if (shouldAutomount(sa, pod)) mountServiceAccountToken(pod);
    if (!pod.spec.imagePullSecrets?.length && sa.imagePullSecrets?.length)
      pod.spec.imagePullSecrets = structuredClone(sa.imagePullSecrets);
    return pod;
  };
}
