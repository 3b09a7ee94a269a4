import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject } from '../../registry/types.ts';
import { deepEqual } from '../../util/deep-equal.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import { SyncQueue } from '../sync-queue.ts';
import {
  type DesiredSlice,
  desiredSlices,
  ENDPOINTSLICE_CONTROLLER,
  MANAGED_BY_LABEL,
  portsKey,
  SERVICE_NAME_LABEL,
  sliceLabels,
} from './endpoint-slices.ts';
import { managedSelector, selectedPods, TRIGGER_TIME_ANNOTATION, triggerTime } from './service-pods.ts';
import { markAllServices, markServicesOf, splitServiceKey } from './service-watch.ts';

const ENDPOINTSLICE_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:endpointslice-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'],
};
const SLICES = 'discovery.k8s.io/endpointslices';

/** What a slice holds that the controller decides. */
const sliceContent = (s: KubeObject) => ({
  addressType: s.addressType,
  endpoints: s.endpoints ?? [],
  ports: s.ports ?? [],
  labels: s.metadata?.labels ?? {},
});

/**
 * kube-controller-manager's EndpointSlice controller: for each Service with a selector, IPv4
 * EndpointSlices named `<service>-<random>`, labelled with the Service's name and
 * `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`, owned by the Service
 * (they go with it). Existing slices are updated in place where they can be, extra ones deleted.
 * Services without a selector get none from it.
 */
export class EndpointSliceController extends BuiltinController {
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
    const svc = this.store.get('/services', ns, name)?.obj;
    const selector = svc && !svc.metadata?.deletionTimestamp ? managedSelector(svc) : undefined;
    if (!svc || !selector) return;
    const type = this.registry.byResource('discovery.k8s.io', 'endpointslices')!;
    const uid = svc.metadata?.uid;
    const existing = this.store
      .list(SLICES, ns)
      .map((e) => e.obj)
      .filter(
        (s) =>
          s.metadata?.labels?.[SERVICE_NAME_LABEL] === name &&
          s.metadata?.labels?.[MANAGED_BY_LABEL] === ENDPOINTSLICE_CONTROLLER,
      );
    const owned = (s: KubeObject) =>
      (s.metadata?.ownerReferences ?? []).some((r: KubeObject) => r?.controller && r.uid === uid);
    const reusable = new Map<string, KubeObject[]>();
    const stale: KubeObject[] = [];
    for (const s of existing) {
      if (!owned(s)) {
        stale.push(s);
        continue;
      }
      const list = reusable.get(portsKey(s.ports)) ?? [];
      list.push(s);
      reusable.set(portsKey(s.ports), list);
    }
    const labels = sliceLabels(svc);
    const toCreate: DesiredSlice[] = [];
    const toUpdate: [KubeObject, DesiredSlice][] = [];
    for (const want of desiredSlices(
      svc,
      selectedPods(this.store, svc, selector),
      (n) => this.store.get('/nodes', '', n)?.obj,
    )) {
      const slot = reusable.get(portsKey(want.ports))?.shift();
      if (!slot) toCreate.push(want);
      else if (!deepEqual(sliceContent(slot), sliceContent(this.sliceFor(svc, labels, want, slot))))
        toUpdate.push([slot, want]);
    }
    for (const left of reusable.values()) stale.push(...left);
    const user = ENDPOINTSLICE_USER;
    for (const want of toCreate)
      await this.objects.create(type, ns, this.sliceFor(svc, labels, want), { user });
    for (const [slot, want] of toUpdate)
      await this.objects.update(
        type,
        ns,
        slot.metadata?.name,
        { patch: (cur) => this.sliceFor(svc, labels, want, cur) },
        { user },
      );
    for (const s of stale)
      await this.objects.delete(type, ns, s.metadata?.name, { user }).catch((err) => {
        if ((err as { code?: number }).code !== 404) throw err;
      });
  }

  /** The slice holding `want`: a new one (generated name, owned by the Service) or `current` changed. */
  private sliceFor(
    svc: KubeObject,
    labels: Record<string, string>,
    want: DesiredSlice,
    current?: KubeObject,
  ): KubeObject {
    const name = svc.metadata?.name;
    const metadata: KubeObject = current
      ? { ...current.metadata, labels }
      : {
          generateName: `${name}-`,
          labels,
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'Service',
              name,
              uid: svc.metadata?.uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        };
    metadata.annotations = { ...metadata.annotations, [TRIGGER_TIME_ANNOTATION]: triggerTime() };
    const slice: KubeObject = { ...current, metadata, addressType: 'IPv4', endpoints: want.endpoints };
    if (want.ports.length) slice.ports = want.ports;
    else delete slice.ports;
    return slice;
  }
}
