import { parseImageReference } from '@kruise/kube-compat';
import type {
  Container,
  EnvVar,
  HTTPGetAction,
  Lifecycle,
  PersistentVolumeClaim,
  PodSpec,
  Probe,
  Volume,
} from 'kubernetes-types/core/v1.js';

/**
 * The Kubernetes defaults Kruise's workload webhooks inject into a pod template (upstream's
 * SetDefaultPodSpec over k8s.io/kubernetes' SetDefaults_*), so a stored template — and the
 * revision hashed from it — looks as it does under upstream. All functions mutate their argument.
 */

/** Always for `:latest` or no tag, IfNotPresent otherwise (a digest-only image has no tag). */
function pullPolicyFor(image: string | undefined): string {
  try {
    const ref = parseImageReference(image ?? '');
    const tag = ref.tag ?? (ref.digest ? '' : 'latest');
    return tag === 'latest' ? 'Always' : 'IfNotPresent';
  } catch {
    return 'IfNotPresent';
  }
}

/** SetDefaults_HTTPGetAction: path `/`, scheme HTTP. */
export function defaultHttpGet(action: HTTPGetAction | undefined): void {
  if (!action) return;
  action.path ||= '/';
  action.scheme ||= 'HTTP';
}

/** SetDefaults_Probe: timeout 1s, period 10s, success 1, failure 3 (and its httpGet's defaults). */
export function defaultProbe(probe: Probe | undefined): void {
  if (!probe) return;
  probe.timeoutSeconds ||= 1;
  probe.periodSeconds ||= 10;
  probe.successThreshold ||= 1;
  probe.failureThreshold ||= 3;
  defaultHttpGet(probe.httpGet);
}

function defaultLifecycle(lifecycle: Lifecycle | undefined): void {
  defaultHttpGet(lifecycle?.postStart?.httpGet);
  defaultHttpGet(lifecycle?.preStop?.httpGet);
}

/** SetDefaults_ObjectFieldSelector of each env var's fieldRef: apiVersion v1. */
export function defaultEnv(env: EnvVar[] | undefined): void {
  for (const e of env ?? []) if (e.valueFrom?.fieldRef) e.valueFrom.fieldRef.apiVersion ||= 'v1';
}

/** The per-field defaults of any container: port protocols, env field refs, probes, hooks. */
function defaultContainerFields(c: Omit<Container, 'name'>): void {
  for (const p of c.ports ?? []) p.protocol ||= 'TCP';
  defaultEnv(c.env);
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  defaultLifecycle(c.lifecycle);
}

/** SetDefaults_Container: imagePullPolicy by the image's tag, the termination message path and policy. */
export function defaultContainerCore(c: Container): void {
  c.imagePullPolicy ||= pullPolicyFor(c.image);
  c.terminationMessagePath ||= '/dev/termination-log';
  c.terminationMessagePolicy ||= 'File';
}

/** SetDefaults_Container plus the per-field defaults Kruise applies to each container. */
function defaultContainer(c: Container, pullPolicy?: string): void {
  if (pullPolicy && !c.imagePullPolicy) c.imagePullPolicy = pullPolicy;
  defaultContainerCore(c);
  defaultContainerFields(c);
}

const VOLUME_SOURCES = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
] as const;

/** The Kubernetes defaults of one pod volume (Kruise's SetDefaultPodVolumes). */
export function defaultVolume(v: Volume): void {
  const any = v as unknown as Record<string, unknown>;
  if (VOLUME_SOURCES.every((k) => any[k] === undefined || any[k] === null)) v.emptyDir = {};
  if (v.hostPath) v.hostPath.type ??= '';
  if (v.secret) v.secret.defaultMode ??= 0o644;
  if (v.configMap) v.configMap.defaultMode ??= 0o644;
  if (v.downwardAPI) {
    v.downwardAPI.defaultMode ??= 0o644;
    for (const item of v.downwardAPI.items ?? []) if (item.fieldRef) item.fieldRef.apiVersion ||= 'v1';
  }
  if (v.projected) {
    v.projected.defaultMode ??= 0o644;
    for (const s of v.projected.sources ?? []) {
      for (const item of s.downwardAPI?.items ?? []) if (item.fieldRef) item.fieldRef.apiVersion ||= 'v1';
      if (s.serviceAccountToken) s.serviceAccountToken.expirationSeconds ??= 3600;
    }
  }
}

/**
 * Kruise's SetDefaultPodSpec: dnsPolicy ClusterFirst, restartPolicy Always, an empty
 * securityContext, terminationGracePeriodSeconds 30, schedulerName default-scheduler, hostPort =
 * containerPort under hostNetwork; volumes, init containers and containers (whose
 * imagePullPolicy defaults to Always, for in-place updates) as Kubernetes defaults them.
 */
export function setPodSpecDefaults(spec: PodSpec): void {
  spec.dnsPolicy ||= 'ClusterFirst';
  spec.restartPolicy ||= 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ||= 'default-scheduler';
  if (spec.hostNetwork)
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])])
      for (const p of c.ports ?? []) if (!p.hostPort) p.hostPort = p.containerPort;
  for (const v of spec.volumes ?? []) defaultVolume(v);
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const c of spec.containers ?? []) defaultContainer(c, 'Always');
  for (const c of spec.ephemeralContainers ?? []) defaultContainerFields(c);
}

/** SetDefaults_PersistentVolumeClaim for a volumeClaimTemplate: status phase Pending. */
export function setVolumeClaimTemplateDefaults(pvc: PersistentVolumeClaim): void {
  const p = pvc as { status?: { phase?: string } };
  p.status ??= {};
  p.status.phase ||= 'Pending';
}
