import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../../registry/types.ts';
import type { ChangeEvent } from '../../store/store.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import { parseQuantity } from '../scheduler/quantity.ts';
import { readyStatus } from '../scheduler/taints.ts';
import {
  LOCAL_PATH_CLASS,
  LOCAL_PATH_PROVISIONER,
  localPathClass,
  localPathVolume,
  SELECTED_NODE,
} from './local-path.ts';

const VOLUME_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:persistent-volume-binder',
  groups: ['system:serviceaccounts'],
};
const CLAIMS = '/persistentvolumeclaims';
const VOLUMES = '/persistentvolumes';
const CLASSES = 'storage.k8s.io/storageclasses';

/** Where the default local-path class keeps its directories. */
export interface VolumeOptions {
  /** The default StorageClass's `nodePath` (default /var/lib/kruise/local-path). */
  localPathRoot?: string;
}

const isDefault = (sc: KubeObject) =>
  sc.metadata?.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true';

/** Whether an Available volume can serve the claim (class, size, access modes). */
function volumeFits(pv: KubeObject, claim: KubeObject): boolean {
  if (pv.status?.phase !== 'Available' && pv.status?.phase !== 'Pending') return false;
  if (pv.spec?.claimRef && pv.spec.claimRef.uid !== claim.metadata?.uid) return false;
  if ((pv.spec?.storageClassName ?? '') !== (claim.spec?.storageClassName ?? '')) return false;
  if (parseQuantity(pv.spec?.capacity?.storage) < parseQuantity(claim.spec?.resources?.requests?.storage))
    return false;
  return (claim.spec?.accessModes ?? []).every((m: string) => (pv.spec?.accessModes ?? []).includes(m));
}

/**
 * kube-controller-manager's PersistentVolume controller with a local-path provisioner: gives
 * class-less claims the default class, binds claims to fitting volumes, provisions a node-local
 * volume for claims of the local-path class (at once for Immediate, once the scheduler picked a
 * node for WaitForFirstConsumer), and deletes or releases the volume of a deleted claim.
 */
export class VolumeController extends BuiltinController {
  private scheduled = false;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly types: { claim: ResourceType; volume: ResourceType; sc: ResourceType };

  constructor(deps: ControllerDeps, options: VolumeOptions = {}) {
    super(deps);
    this.types = {
      claim: deps.registry.byResource('', 'persistentvolumeclaims')!,
      volume: deps.registry.byResource('', 'persistentvolumes')!,
      sc: deps.registry.byResource('storage.k8s.io', 'storageclasses')!,
    };
    for (const resource of [CLAIMS, VOLUMES, CLASSES, '/nodes'])
      this.unsubscribe.push(deps.store.subscribe(resource, { onChange: (e) => this.observe(e) }));
    if (!deps.store.get(CLASSES, '', LOCAL_PATH_CLASS))
      void this.objects
        .create(this.types.sc, '', localPathClass(options.localPathRoot ?? '/var/lib/kruise/local-path'), {
          user: VOLUME_USER,
        })
        .catch(() => undefined);
    this.kick();
  }

  /** Stops watching. */
  stop(): void {
    for (const u of this.unsubscribe) u();
  }

  private observe(e: ChangeEvent): void {
    if (e.resource === CLAIMS && e.type === 'DELETED') void this.reclaim(e.obj);
    if (e.resource !== '/nodes' || e.type === 'ADDED') this.kick();
  }

  private kick(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.syncClaims();
    });
  }

  private async write(
    type: ResourceType,
    ns: string,
    name: string,
    subresource: string,
    patch: (cur: KubeObject) => KubeObject,
  ) {
    try {
      return await this.objects.update(type, ns, name, { patch }, { user: VOLUME_USER, subresource });
    } catch {
      return undefined; // changed or gone: the next event brings it back
    }
  }

  private async syncClaims(): Promise<void> {
    const classes = this.store.list(CLASSES).map((e) => e.obj);
    const fallback = classes.find(isDefault);
    for (const { obj: pv } of this.store.list(VOLUMES)) {
      if (pv.status?.phase === 'Pending' && !pv.spec?.claimRef)
        await this.write(this.types.volume, '', pv.metadata?.name, 'status', (cur) => ({
          ...cur,
          status: { phase: 'Available' },
        }));
    }
    for (const { obj: claim } of this.store.list(CLAIMS)) {
      if (claim.metadata?.deletionTimestamp || claim.status?.phase === 'Bound') continue;
      const ns = claim.metadata?.namespace;
      const name = claim.metadata?.name;
      if (claim.spec?.storageClassName == null && fallback) {
        // Retroactive default class assignment (the event brings the claim back here).
        await this.write(this.types.claim, ns, name, '', (cur) => ({
          ...cur,
          spec: { ...cur.spec, storageClassName: cur.spec?.storageClassName ?? fallback.metadata?.name },
        }));
        continue;
      }
      const volumes = this.store.list(VOLUMES).map((e) => e.obj);
      const named = claim.spec?.volumeName;
      let pv = named
        ? volumes.find((v) => v.metadata?.name === named && volumeFits(v, claim))
        : volumes.find((v) => volumeFits(v, claim));
      if (!pv && !named) pv = await this.provision(claim, classes);
      if (pv) await this.bind(claim, pv);
    }
  }

  /** A local-path volume for the claim, once it is known on which node. */
  private async provision(claim: KubeObject, classes: KubeObject[]): Promise<KubeObject | undefined> {
    const sc = classes.find((c) => c.metadata?.name === claim.spec?.storageClassName);
    if (!sc || sc.provisioner !== LOCAL_PATH_PROVISIONER) return undefined;
    let node: string | undefined = claim.metadata?.annotations?.[SELECTED_NODE];
    if (!node && sc.volumeBindingMode !== 'WaitForFirstConsumer')
      node = this.store.list('/nodes').find((e) => readyStatus(e.obj) === 'True')?.obj.metadata?.name;
    if (!node) return undefined;
    const wanted = localPathVolume(claim, sc, node);
    const existing = this.store.get(VOLUMES, '', wanted.metadata!.name)?.obj;
    if (existing) return existing;
    try {
      return await this.objects.create(this.types.volume, '', wanted, { user: VOLUME_USER });
    } catch {
      return undefined;
    }
  }

  /** Binds both ways: the volume's claimRef and phase, the claim's volumeName, annotations and status. */
  private async bind(claim: KubeObject, pv: KubeObject): Promise<void> {
    const pvName = pv.metadata?.name;
    const claimRef = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      namespace: claim.metadata?.namespace,
      name: claim.metadata?.name,
      uid: claim.metadata?.uid,
    };
    if (!pv.spec?.claimRef)
      await this.write(this.types.volume, '', pvName, '', (cur) => ({
        ...cur,
        spec: { ...cur.spec, claimRef },
      }));
    await this.write(this.types.volume, '', pvName, 'status', (cur) => ({
      ...cur,
      status: { phase: 'Bound' },
    }));
    const provisioner = pv.metadata?.annotations?.['pv.kubernetes.io/provisioned-by'];
    const bound = await this.write(
      this.types.claim,
      claim.metadata?.namespace,
      claim.metadata?.name,
      '',
      (cur) => ({
        ...cur,
        metadata: {
          ...cur.metadata,
          annotations: {
            ...cur.metadata?.annotations,
            'pv.kubernetes.io/bind-completed': 'yes',
            'pv.kubernetes.io/bound-by-controller': 'yes',
            ...(provisioner
              ? {
                  'volume.kubernetes.io/storage-provisioner': provisioner,
                  'volume.beta.kubernetes.io/storage-provisioner': provisioner,
                }
              : {}),
          },
        },
        spec: { ...cur.spec, volumeName: pvName },
      }),
    );
    if (!bound) return;
    await this.write(this.types.claim, claim.metadata?.namespace, claim.metadata?.name, 'status', (cur) => ({
      ...cur,
      status: { phase: 'Bound', accessModes: pv.spec?.accessModes, capacity: pv.spec?.capacity },
    }));
  }

  /** A deleted claim's volume: deleted (reclaim Delete) or Released (Retain). */
  private async reclaim(claim: KubeObject): Promise<void> {
    for (const { obj: pv } of this.store.list(VOLUMES)) {
      if (pv.spec?.claimRef?.uid !== claim.metadata?.uid) continue;
      if (pv.spec?.persistentVolumeReclaimPolicy === 'Delete') {
        await this.objects
          .delete(this.types.volume, '', pv.metadata?.name, { user: VOLUME_USER })
          .catch(() => undefined);
      } else {
        await this.write(this.types.volume, '', pv.metadata?.name, 'status', (cur) => ({
          ...cur,
          status: { phase: 'Released' },
        }));
      }
    }
  }
}
