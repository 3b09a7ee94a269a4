import type { KubeObject } from '../../registry/types.ts';
import {
  endpointHostname,
  findPort,
  HEADLESS_LABEL,
  isPodReady,
  podIPv4,
  podReference,
  shouldPodBeInEndpoints,
} from './service-pods.ts';

/** The label naming the Service an EndpointSlice belongs to. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** The label naming who manages an EndpointSlice. */
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
/** The EndpointSlice controller's value of MANAGED_BY_LABEL. */
export const ENDPOINTSLICE_CONTROLLER = 'endpointslice-controller.k8s.io';
/** The most endpoints one slice holds (kube-controller-manager's default). */
export const MAX_ENDPOINTS_PER_SLICE = 100;
const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** The ports and endpoints of one slice the controller wants. */
export interface DesiredSlice {
  ports: KubeObject[];
  endpoints: KubeObject[];
}

/** A key of a slice's port list, to match existing slices with wanted ones. */
export const portsKey = (ports: KubeObject[] | undefined): string => JSON.stringify(ports ?? []);

/**
 * The slices a Service's pods make: every selected pod with an IPv4 address that has not
 * finished (terminating ones too), with its conditions — `serving` (Ready), `terminating`
 * (deletionTimestamp), `ready` (serving and not terminating, or always with
 * publishNotReadyAddresses) — its node, zone and pod reference; pods whose ports resolve alike
 * share slices of at most 100 endpoints. No pod: one empty slice.
 */
export function desiredSlices(
  svc: KubeObject,
  pods: KubeObject[],
  nodeOf: (name: string) => KubeObject | undefined,
): DesiredSlice[] {
  const publishNotReady = Boolean(svc.spec?.publishNotReadyAddresses);
  const groups = new Map<string, DesiredSlice>();
  const sorted = [...pods].sort((a, b) => String(a.metadata?.name).localeCompare(b.metadata?.name));
  for (const pod of sorted) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ip = podIPv4(pod);
    if (!ip) continue;
    const ports: KubeObject[] = [];
    for (const sp of svc.spec?.ports ?? []) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      ports.push({
        name: sp.name ?? '',
        port,
        protocol: sp.protocol ?? 'TCP',
        ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}),
      });
    }
    const serving = isPodReady(pod);
    const terminating = Boolean(pod.metadata?.deletionTimestamp);
    const endpoint: KubeObject = {
      addresses: [ip],
      conditions: { ready: publishNotReady || (serving && !terminating), serving, terminating },
    };
    const hostname = endpointHostname(pod, svc);
    if (hostname) endpoint.hostname = hostname;
    endpoint.targetRef = podReference(pod);
    const nodeName = pod.spec?.nodeName;
    if (nodeName) {
      endpoint.nodeName = nodeName;
      const zone = nodeOf(nodeName)?.metadata?.labels?.[ZONE_LABEL];
      if (zone) endpoint.zone = zone;
    }
    const key = portsKey(ports);
    let group = groups.get(key);
    if (!group) {
      group = { ports, endpoints: [] };
      groups.set(key, group);
    }
    group.endpoints.push(endpoint);
  }
  const out: DesiredSlice[] = [];
  for (const { ports, endpoints } of groups.values())
    for (let i = 0; i < endpoints.length; i += MAX_ENDPOINTS_PER_SLICE)
      out.push({ ports, endpoints: endpoints.slice(i, i + MAX_ENDPOINTS_PER_SLICE) });
  return out.length ? out : [{ ports: [], endpoints: [] }];
}

/** The labels of a Service's slices: its own labels, then the service name, manager and headless labels. */
export function sliceLabels(svc: KubeObject): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries<string>(svc.metadata?.labels ?? {}))
    if (![SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL].includes(k)) labels[k] = v;
  labels[SERVICE_NAME_LABEL] = svc.metadata?.name;
  labels[MANAGED_BY_LABEL] = ENDPOINTSLICE_CONTROLLER;
  if (svc.spec?.clusterIP === 'None') labels[HEADLESS_LABEL] = '';
  return labels;
}
