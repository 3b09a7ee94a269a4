import type { StatusCause } from '../../errors.ts';
import { deepEqual } from '../../util/deep-equal.ts';
import { AGE_COLUMN, column, wideColumn } from '../columns.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { builtin } from './define.ts';
import { forbiddenField, notSupported, requiredWith } from './field-errors.ts';

/** PersistentVolumeClaim, PersistentVolume (core/v1) and StorageClass (storage.k8s.io/v1). */

const ACCESS_MODES: Record<string, string> = {
  ReadWriteOnce: 'RWO',
  ReadOnlyMany: 'ROX',
  ReadWriteMany: 'RWX',
  ReadWriteOncePod: 'RWOP',
};
/** The annotation that makes a StorageClass the default. */
export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

const accessModes = (modes: unknown): string =>
  Array.isArray(modes) && modes.length ? modes.map((m) => ACCESS_MODES[m] ?? m).join(',') : '';

function accessModeCauses(modes: unknown): StatusCause[] {
  if (!Array.isArray(modes) || modes.length === 0)
    return [requiredWith('spec.accessModes', 'at least 1 access mode is required')];
  return modes
    .filter((m) => !ACCESS_MODES[m])
    .map((m) =>
      notSupported('spec.accessModes', m, [
        'ReadOnlyMany',
        'ReadWriteMany',
        'ReadWriteOnce',
        'ReadWriteOncePod',
      ]),
    );
}

/** ValidatePersistentVolumeClaim(Update): access modes, a storage request, an immutable spec. */
function validateClaim(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const causes = accessModeCauses(obj.spec?.accessModes);
  if (obj.spec?.resources?.requests?.storage === undefined)
    causes.push(requiredWith('spec.resources[storage]', ''));
  if (old) {
    // The volume controller names the volume of a claim that had none, and the default class
    // of a claim that had no class (retroactive default StorageClass assignment).
    const volumeName = old.spec?.volumeName || obj.spec?.volumeName;
    const storageClassName = old.spec?.storageClassName ?? obj.spec?.storageClassName;
    const strip = (spec: any) => ({ ...spec, resources: undefined, volumeName, storageClassName });
    if (!deepEqual(strip(obj.spec), strip(old.spec)))
      causes.push(
        forbiddenField(
          'spec',
          'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
        ),
      );
  }
  return causes;
}

const VOLUME_SOURCES = [
  'hostPath',
  'local',
  'nfs',
  'csi',
  'iscsi',
  'fc',
  'rbd',
  'cephfs',
  'flexVolume',
  'awsElasticBlockStore',
  'gcePersistentDisk',
  'azureDisk',
  'azureFile',
];

/** ValidatePersistentVolume: capacity, access modes and one volume source. */
function validateVolume(obj: KubeObject): StatusCause[] {
  const causes = accessModeCauses(obj.spec?.accessModes);
  if (obj.spec?.capacity?.storage === undefined) causes.push(requiredWith('spec.capacity', ''));
  if (!VOLUME_SOURCES.some((s) => obj.spec?.[s]))
    causes.push(requiredWith('spec', 'must specify a volume type'));
  return causes;
}

/** core/v1 PersistentVolumeClaim and PersistentVolume. */
export const CORE_STORAGE_RESOURCES: ResourceType[] = [
  builtin({
    group: '',
    version: 'v1',
    kind: 'PersistentVolumeClaim',
    plural: 'persistentvolumeclaims',
    namespaced: true,
    shortNames: ['pvc'],
    statusSubresource: true,
    columns: [
      column('Status', (o) => o.status?.phase ?? ''),
      column('Volume', (o) => o.spec?.volumeName ?? ''),
      column('Capacity', (o) => o.status?.capacity?.storage ?? ''),
      column('Access Modes', (o) => accessModes(o.status?.accessModes)),
      column('StorageClass', (o) => o.spec?.storageClassName ?? ''),
      column('VolumeAttributesClass', (o) => o.spec?.volumeAttributesClassName ?? '<unset>'),
      AGE_COLUMN,
      wideColumn('VolumeMode', (o) => o.spec?.volumeMode ?? ''),
    ],
    defaults: (o) => {
      o.spec ??= {};
      o.spec.volumeMode ??= 'Filesystem';
      o.status = { phase: 'Pending' };
    },
    validate: validateClaim,
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'PersistentVolume',
    plural: 'persistentvolumes',
    namespaced: false,
    shortNames: ['pv'],
    statusSubresource: true,
    columns: [
      column('Capacity', (o) => o.spec?.capacity?.storage ?? ''),
      column('Access Modes', (o) => accessModes(o.spec?.accessModes)),
      column('Reclaim Policy', (o) => o.spec?.persistentVolumeReclaimPolicy ?? ''),
      column('Status', (o) => o.status?.phase ?? ''),
      column('Claim', (o) =>
        o.spec?.claimRef ? `${o.spec.claimRef.namespace}/${o.spec.claimRef.name}` : '',
      ),
      column('StorageClass', (o) => o.spec?.storageClassName ?? ''),
      column('VolumeAttributesClass', (o) => o.spec?.volumeAttributesClassName ?? '<unset>'),
      column('Reason', (o) => o.status?.reason ?? ''),
      AGE_COLUMN,
      wideColumn('VolumeMode', (o) => o.spec?.volumeMode ?? ''),
    ],
    defaults: (o) => {
      o.spec ??= {};
      o.spec.persistentVolumeReclaimPolicy ??= 'Retain';
      o.spec.volumeMode ??= 'Filesystem';
      o.status = { phase: 'Pending' };
    },
    validate: validateVolume,
  }),
];

/** storage.k8s.io/v1 StorageClass. */
export const STORAGE_RESOURCES: ResourceType[] = [
  builtin({
    group: 'storage.k8s.io',
    version: 'v1',
    kind: 'StorageClass',
    plural: 'storageclasses',
    namespaced: false,
    shortNames: ['sc'],
    columns: [
      column('Provisioner', (o) => o.provisioner ?? ''),
      column('ReclaimPolicy', (o) => o.reclaimPolicy ?? ''),
      column('VolumeBindingMode', (o) => o.volumeBindingMode ?? ''),
      column('AllowVolumeExpansion', (o) => Boolean(o.allowVolumeExpansion), 'boolean'),
      AGE_COLUMN,
    ],
    defaults: (o) => {
      o.reclaimPolicy ??= 'Delete';
      o.volumeBindingMode ??= 'Immediate';
    },
    validate: (o, old) => {
      const causes: StatusCause[] = [];
      if (!o.provisioner) causes.push(requiredWith('provisioner', ''));
      for (const f of ['provisioner', 'parameters', 'reclaimPolicy', 'volumeBindingMode'])
        if (old && !deepEqual(o[f], old[f]))
          causes.push(forbiddenField(f, 'updates to ' + f + ' are forbidden.'));
      return causes;
    },
  }),
];
