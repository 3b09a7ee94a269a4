import { isIPv4 } from 'node:net';
import type { KubeObject } from '../../registry/types.ts';
import type { Store } from '../../store/store.ts';

/** Annotation on Endpoints and EndpointSlices: when the change they reflect happened. */
export const TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';
/** Label of a headless Service's Endpoints and EndpointSlices. */
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';

/** The Service's selector, when the endpoint controllers manage its endpoints (a selector, not ExternalName). */
export function managedSelector(svc: KubeObject): Record<string, string> | undefined {
  const selector = svc.spec?.selector;
  if (!selector || typeof selector !== 'object' || svc.spec?.type === 'ExternalName') return undefined;
  return selector;
}

/** Whether labels carry every key and value of a Service selector (an empty selector selects nothing). */
export function selects(
  selector: Record<string, string>,
  labels: Record<string, string> | undefined,
): boolean {
  const entries = Object.entries(selector);
  return entries.length > 0 && entries.every(([k, v]) => labels?.[k] === v);
}

/** The pods of the Service's namespace its selector picks. */
export function selectedPods(store: Store, svc: KubeObject, selector: Record<string, string>): KubeObject[] {
  return store
    .list('/pods', svc.metadata?.namespace)
    .map((e) => e.obj)
    .filter((pod) => selects(selector, pod.metadata?.labels));
}

/** The Services of a namespace whose selector picks any of these label sets. */
export function servicesSelecting(
  store: Store,
  namespace: string,
  labelSets: (Record<string, string> | undefined)[],
): string[] {
  const out: string[] = [];
  for (const { obj: svc } of store.list('/services', namespace)) {
    const selector = managedSelector(svc);
    if (selector && labelSets.some((labels) => selects(selector, labels))) out.push(svc.metadata?.name);
  }
  return out;
}

/** kubelet's Ready condition is True. */
export function isPodReady(pod: KubeObject): boolean {
  return (pod.status?.conditions ?? []).some((c: KubeObject) => c?.type === 'Ready' && c.status === 'True');
}

/**
 * Whether a pod belongs in a Service's endpoints: not finished (Succeeded/Failed), with an
 * address, and not terminating unless terminating pods are included.
 */
export function shouldPodBeInEndpoints(pod: KubeObject, includeTerminating: boolean): boolean {
  if (['Succeeded', 'Failed'].includes(pod.status?.phase)) return false;
  if (!pod.status?.podIP && !(pod.status?.podIPs ?? []).length) return false;
  return includeTerminating || !pod.metadata?.deletionTimestamp;
}

/** The pod's IPv4 address (the Services here are IPv4 single-stack). */
export function podIPv4(pod: KubeObject): string | undefined {
  const ips: string[] = [pod.status?.podIP, ...(pod.status?.podIPs ?? []).map((p: KubeObject) => p?.ip)];
  return ips.find((ip) => typeof ip === 'string' && isIPv4(ip));
}

/**
 * The pod's port for a Service port (FindPort): a numeric targetPort as it is, a named one the
 * containerPort of the container port with that name and protocol; undefined when none has it.
 */
export function findPort(pod: KubeObject, servicePort: KubeObject): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  const protocol = servicePort.protocol ?? 'TCP';
  const sidecars = (pod.spec?.initContainers ?? []).filter((c: KubeObject) => c?.restartPolicy === 'Always');
  for (const c of [...(pod.spec?.containers ?? []), ...sidecars])
    for (const p of c?.ports ?? [])
      if (p?.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
  return undefined;
}

/** A pod's hostname in a Service's DNS, when it names the Service as its subdomain. */
export function endpointHostname(pod: KubeObject, svc: KubeObject): string | undefined {
  const hostname = pod.spec?.hostname;
  return hostname && pod.spec?.subdomain === svc.metadata?.name ? hostname : undefined;
}

/** The reference from an endpoint to its pod. */
export function podReference(pod: KubeObject): KubeObject {
  return {
    kind: 'Pod',
    namespace: pod.metadata?.namespace,
    name: pod.metadata?.name,
    uid: pod.metadata?.uid,
  };
}

/** The labels the endpoints of a Service carry: the Service's own, plus `headless` for a headless one. */
export function endpointLabels(svc: KubeObject): Record<string, string> {
  const labels: Record<string, string> = { ...svc.metadata?.labels };
  if (svc.spec?.clusterIP === 'None') labels[HEADLESS_LABEL] = '';
  return labels;
}

/** `metav1.Time` in RFC 3339 with nanoseconds, as the trigger-time annotation is written. */
export function triggerTime(): string {
  return new Date().toISOString();
}
