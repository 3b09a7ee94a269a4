import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject } from '../../registry/types.ts';
import { deepEqual } from '../../util/deep-equal.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import { SyncQueue } from '../sync-queue.ts';
import {
  endpointHostname,
  endpointLabels,
  findPort,
  isPodReady,
  managedSelector,
  podIPv4,
  podReference,
  selectedPods,
  shouldPodBeInEndpoints,
  TRIGGER_TIME_ANNOTATION,
  triggerTime,
} from './service-pods.ts';
import { markAllServices, markServicesOf, splitServiceKey } from './service-watch.ts';

const ENDPOINT_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:endpoint-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'],
};

interface Address {
  address: KubeObject;
  ready: boolean;
  ports: KubeObject[];
}

const byIpThenUid = (a: KubeObject, b: KubeObject) =>
  a.ip === b.ip ? String(a.targetRef?.uid ?? '').localeCompare(b.targetRef?.uid ?? '') : a.ip < b.ip ? -1 : 1;
const portKey = (p: KubeObject) => `${p.name ?? ''}|${p.port}|${p.protocol}|${p.appProtocol ?? ''}`;

/**
 * The subsets of a Service's Endpoints, as the Endpoints controller computes them: each selected
 * pod with an IPv4 address, ready (or every one, with publishNotReadyAddresses) in `addresses`,
 * otherwise in `notReadyAddresses`, with the pod's port for each Service port (a named targetPort
 * resolved in the pod); repacked so addresses with the same ports share a subset.
 */
export function endpointSubsets(svc: KubeObject, pods: KubeObject[]): KubeObject[] {
  const publishNotReady = Boolean(svc.spec?.publishNotReadyAddresses);
  const servicePorts: KubeObject[] = svc.spec?.ports ?? [];
  const headless = svc.spec?.clusterIP === 'None';
  const addresses: Address[] = [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const ip = podIPv4(pod);
    if (!ip) continue;
    const address: KubeObject = { ip };
    const hostname = headless ? endpointHostname(pod, svc) : undefined;
    if (hostname) address.hostname = hostname;
    if (pod.spec?.nodeName) address.nodeName = pod.spec.nodeName;
    address.targetRef = podReference(pod);
    const ports: KubeObject[] = [];
    for (const sp of servicePorts) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      ports.push({
        ...(sp.name ? { name: sp.name } : {}),
        port,
        protocol: sp.protocol ?? 'TCP',
        ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}),
      });
    }
    if (!ports.length && !(servicePorts.length === 0 && headless)) continue;
    addresses.push({ address, ready: publishNotReady || isPodReady(pod), ports });
  }
  const groups = new Map<string, { ports: KubeObject[]; ready: KubeObject[]; notReady: KubeObject[] }>();
  for (const a of addresses) {
    const ports = [...a.ports].sort((x, y) => portKey(x).localeCompare(portKey(y)));
    const key = ports.map(portKey).join(',');
    let group = groups.get(key);
    if (!group) {
      group = { ports, ready: [], notReady: [] };
      groups.set(key, group);
    }
    (a.ready ? group.ready : group.notReady).push(a.address);
  }
  return [...groups.keys()].sort().map((key) => {
    const g = groups.get(key)!;
    return {
      ...(g.ready.length ? { addresses: g.ready.sort(byIpThenUid) } : {}),
      ...(g.notReady.length ? { notReadyAddresses: g.notReady.sort(byIpThenUid) } : {}),
      ...(g.ports.length ? { ports: g.ports } : {}),
    };
  });
}

/**
 * kube-controller-manager's Endpoints controller: for each Service with a selector, the Endpoints
 * of the same name list its pods' addresses and ports; a Service without a selector is left to
 * whoever writes its Endpoints; a deleted Service's Endpoints go with it.
 */
export class EndpointsController extends BuiltinController {
  private readonly queue = new SyncQueue((key) => this.sync(key));
  private readonly unsubscribe: () => void;

  constructor(deps: ControllerDeps) {
    super(deps);
    this.unsubscribe = deps.store.subscribe('*', {
      onChange: (e) => markServicesOf(this.store, e, this.queue),
    });
    markAllServices(deps.store, this.queue);
  }

  /** Resolves once every Service seen so far was synced once. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Stops watching. */
  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  private async sync(key: string): Promise<void> {
    const [ns, name] = splitServiceKey(key);
    const type = this.registry.byResource('', 'endpoints')!;
    const svc = this.store.get('/services', ns, name)?.obj;
    const current = this.store.get('/endpoints', ns, name)?.obj;
    if (!svc) {
      if (current) await this.objects.delete(type, ns, name, { user: ENDPOINT_USER }).catch(ignoreNotFound);
      return;
    }
    const selector = managedSelector(svc);
    if (!selector) return;
    const subsets = endpointSubsets(svc, selectedPods(this.store, svc, selector));
    const labels = endpointLabels(svc);
    if (
      current &&
      deepEqual(current.subsets ?? [], subsets) &&
      deepEqual(current.metadata?.labels ?? {}, labels)
    )
      return;
    const written = (ep: KubeObject): KubeObject => {
      const next: KubeObject = {
        ...ep,
        metadata: {
          ...ep.metadata,
          labels,
          annotations: { ...ep.metadata?.annotations, [TRIGGER_TIME_ANNOTATION]: triggerTime() },
        },
        subsets,
      };
      // Go omits an empty list.
      if (!subsets.length) delete next.subsets;
      return next;
    };
    if (!current)
      await this.objects.create(type, ns, written({ metadata: { name } }), { user: ENDPOINT_USER });
    else await this.objects.update(type, ns, name, { patch: written }, { user: ENDPOINT_USER });
  }
}

function ignoreNotFound(err: unknown): void {
  if ((err as { code?: number }).code !== 404) throw err;
}
