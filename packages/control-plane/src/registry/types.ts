import type { Attributes } from '../auth/attributes.ts';
import type { StatusCause } from '../errors.ts';

/** A Kubernetes object as JSON. */
export type KubeObject = Record<string, any> & {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, any>;
};

/** A column of the `meta.k8s.io/v1 Table` output. */
export interface TableColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  /** Computes the cell of one object. */
  cell: (obj: KubeObject, now: number) => unknown;
}

/** How the server stores, validates and shows one resource. */
export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  /** Whether `/status` exists (then writes to the main resource keep the stored status). */
  statusSubresource: boolean;
  /** Extra subresources served (e.g. `token`, `scale`, `finalize`). */
  subresources: string[];
  /** Only POST is served and nothing is stored (reviews). */
  virtual?: (obj: KubeObject, ctx: VirtualContext) => KubeObject;
  /** Whether `metadata.generation` tracks spec changes (everything except a few built-ins). */
  tracksGeneration: boolean;
  /**
   * Built-in validation: returns causes (empty when valid). `old` is set on updates, with the
   * subresource written (`''`, `status`, `resize`, …).
   */
  validate?: (obj: KubeObject, old: KubeObject | undefined, subresource: string) => StatusCause[];
  /** Folds write-only fields into the stored form on every write (Secret `stringData` into `data`). */
  normalize?: (obj: KubeObject) => void;
  /**
   * Whether a DELETE that removes the object answers with the object (kube-apiserver's
   * `ReturnDeletedObject`: pods, services, service accounts, custom resources) rather than a
   * `Status` of kind Success.
   */
  returnsDeletedObject?: boolean;
  /** Fills defaults on create (built-ins). */
  defaults?: (obj: KubeObject) => void;
  /** Field values for field selectors besides metadata.name/namespace. */
  selectableFields?: (obj: KubeObject) => Record<string, string>;
  /** Columns of the Table output after NAME (AGE included where wanted). */
  columns?: TableColumn[];
  /** The CRD's structural schema, for custom resources. */
  schema?: Record<string, any>;
  /** Set for custom resources: the CRD's name. */
  crdName?: string;
  /** Set for custom resources: the CRD's storage version, and how objects convert between versions. */
  storageVersion?: string;
  /** The CRD's `spec.conversion` (`None` when absent). */
  conversion?: { strategy?: string; webhook?: Record<string, any> };
  /** Scale subresource paths of a CRD. */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

/** What a virtual (review) resource may ask of the server. */
export interface VirtualContext {
  user: { username: string; groups: string[]; uid?: string };
  authorize: (attrs: Attributes) => { allowed: boolean; reason: string };
}

/** Identifies a resource in maps: `group/plural` (`/pods` for the core group). */
export function resourceKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}

/** `apiVersion` string of a resource type. */
export function apiVersionOf(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}
