import { nowRFC3339 } from '../api/context.ts';
import { ApiError, invalid, type StatusCause } from '../errors.ts';
import { apiVersionOf, type KubeObject, type ResourceType } from '../registry/types.ts';
import { deepEqual } from '../util/deep-equal.ts';
import { type FieldPath, FieldSet, pathString } from './field-set.ts';
import { ssaTypeOf } from './types.ts';
import { addedFieldsV1, compare, merge, removeFields, toFieldSet } from './walk.ts';

/** One `metadata.managedFields` entry. */
export interface ManagedFieldsEntry {
  /** Left out when empty (a client without fieldManager or User-Agent), as Go's `omitempty`. */
  manager?: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, any>;
  subresource?: string;
}

interface Manager {
  entry: ManagedFieldsEntry;
  set: FieldSet;
  /** The stored `fieldsV1` this set was read from, written back as it is while the set is unchanged. */
  stored?: { set: FieldSet; fieldsV1: Record<string, any> };
}

/**
 * Sets read from stored `fieldsV1` objects. A stored object is never changed and the next version
 * of an object shares the `fieldsV1` of each manager whose fields did not change, so most writes
 * read their managers' sets from here instead of parsing them again.
 */
const storedSets = new WeakMap<object, FieldSet>();

function readFieldsV1(fieldsV1: unknown): FieldSet {
  if (!fieldsV1 || typeof fieldsV1 !== 'object') return FieldSet.fromFieldsV1(fieldsV1);
  let set = storedSets.get(fieldsV1);
  if (!set) {
    set = FieldSet.fromFieldsV1(fieldsV1);
    storedSets.set(fieldsV1, set);
  }
  return set;
}

/** Metadata the field manager never tracks (kube-apiserver's stripped fields). */
const UNTRACKED_META = [
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'generation',
  'managedFields',
  'resourceVersion',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

/** kube-apiserver's manager identifier: what makes two entries the same manager. */
function identify(
  e: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>,
): string {
  return JSON.stringify({
    manager: e.manager ?? '',
    operation: e.operation,
    ...(e.operation === 'Update' ? { apiVersion: e.apiVersion } : {}),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  });
}

/** The part of an object a write through `subresource` may own (status alone, or all but status). */
function tracked(
  type: ResourceType,
  obj: KubeObject | undefined,
  subresource: string,
): KubeObject | undefined {
  if (!obj) return undefined;
  if (subresource === 'status') return obj.status === undefined ? {} : { status: obj.status };
  const { apiVersion: _a, kind: _k, metadata, ...rest } = obj;
  const meta = { ...metadata };
  for (const f of UNTRACKED_META) delete meta[f];
  const out: KubeObject = { ...rest, ...(Object.keys(meta).length ? { metadata: meta } : {}) };
  if (type.statusSubresource) delete out.status;
  return out;
}

/**
 * The managers of an object's managedFields. `stored` (an object as the store holds it, whose
 * entries this server wrote) lets unchanged entries keep their `fieldsV1` objects; a client's
 * managedFields are always re-encoded.
 */
function decode(obj: KubeObject | undefined, stored: boolean): Map<string, Manager> {
  const managers = new Map<string, Manager>();
  for (const e of obj?.metadata?.managedFields ?? []) {
    if (!e?.manager && !e?.fieldsV1) continue;
    // metav1.Time has second precision; clients that parse it may send milliseconds back.
    const ms = Date.parse(e.time);
    const time = Number.isNaN(ms) ? undefined : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const entry = { ...e, ...(time ? { time } : {}) };
    const set = stored ? readFieldsV1(e.fieldsV1) : FieldSet.fromFieldsV1(e.fieldsV1);
    managers.set(identify(entry), {
      entry,
      set,
      ...(stored && e.fieldsV1 && typeof e.fieldsV1 === 'object'
        ? { stored: { set, fieldsV1: e.fieldsV1 } }
        : {}),
    });
  }
  return managers;
}

/** kube-apiserver's order: Apply before Update, then by time, manager, apiVersion, subresource. */
function encode(managers: Map<string, Manager>): ManagedFieldsEntry[] {
  const entries = [...managers.values()]
    .filter((m) => m.set.size > 0)
    .map(({ entry: e, set, stored }) => ({
      ...(e.manager ? { manager: e.manager } : {}),
      operation: e.operation,
      apiVersion: e.apiVersion,
      ...(e.time ? { time: e.time } : {}),
      fieldsType: 'FieldsV1' as const,
      fieldsV1: stored?.set === set ? stored.fieldsV1 : set.toFieldsV1(),
      ...(e.subresource ? { subresource: e.subresource } : {}),
    }));
  const key = (e: ManagedFieldsEntry) => [
    e.operation,
    e.time ?? '',
    e.manager ?? '',
    e.apiVersion,
    e.subresource ?? '',
  ];
  return entries.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
    return 0;
  });
}

function setEntry(
  managers: Map<string, Manager>,
  entry: Omit<ManagedFieldsEntry, 'fieldsType' | 'fieldsV1' | 'time'>,
  set: FieldSet,
): void {
  const id = identify(entry);
  const before = managers.get(id);
  const changed = !before || before.set.size !== set.size || set.difference(before.set).size > 0;
  const time = changed ? nowRFC3339() : before.entry.time;
  managers.set(id, {
    entry: { ...entry, ...(time ? { time } : {}), fieldsType: 'FieldsV1', fieldsV1: {} },
    set,
    ...(before?.stored ? { stored: before.stored } : {}),
  });
}

/**
 * Records an ordinary write (create, update, non-apply patch) in `next.metadata.managedFields`:
 * the manager (its fieldManager or User-Agent) owns what it added or changed, others lose it.
 */
export function recordUpdate(
  type: ResourceType,
  old: KubeObject | undefined,
  next: KubeObject,
  manager: string,
  subresource: string,
): void {
  const given = next.metadata?.managedFields;
  if (!old && !(Array.isArray(given) && given.length)) {
    recordCreate(type, next, manager, subresource);
    return;
  }
  const reset =
    Array.isArray(given) && given.length > 0 && given.every((e) => !e || Object.keys(e).length === 0);
  // A client that sends back the managedFields it read (a GET, then a PUT) sent the stored ones.
  const fromClient =
    Array.isArray(given) && given.length > 0 && !deepEqual(given, old?.metadata?.managedFields);
  const managers = reset ? new Map() : decode(fromClient ? next : old, !fromClient);
  const t = ssaTypeOf(type);
  const diff = compare(tracked(type, old, subresource) ?? {}, tracked(type, next, subresource), t);
  const changed = diff.added.union(diff.modified);
  const entry = {
    manager,
    operation: 'Update' as const,
    apiVersion: apiVersionOf(type),
    ...(subresource ? { subresource } : {}),
  };
  const id = identify(entry);
  for (const [key, m] of managers) {
    if (key !== id) m.set = m.set.difference(changed).difference(diff.removed);
  }
  const own = (managers.get(id)?.set ?? new FieldSet()).union(changed).difference(diff.removed);
  if (own.size > 0 || managers.has(id)) setEntry(managers, entry, own);
  next.metadata ??= {};
  const encoded = encode(managers);
  if (encoded.length) next.metadata.managedFields = encoded;
  else delete next.metadata.managedFields;
}

/**
 * `recordUpdate` of a create that brings no managedFields (the common write): one Update entry
 * owning every field, its fieldsV1 built in one walk (kube-apiserver's result, at a fraction of the
 * cost of the general path's field sets).
 */
function recordCreate(type: ResourceType, next: KubeObject, manager: string, subresource: string): void {
  const fieldsV1 = addedFieldsV1(tracked(type, next, subresource), ssaTypeOf(type));
  next.metadata ??= {};
  if (Object.keys(fieldsV1).length === 0) {
    delete next.metadata.managedFields;
    return;
  }
  next.metadata.managedFields = [
    {
      ...(manager ? { manager } : {}),
      operation: 'Update',
      apiVersion: apiVersionOf(type),
      time: nowRFC3339(),
      fieldsType: 'FieldsV1',
      fieldsV1,
      ...(subresource ? { subresource } : {}),
    },
  ];
}

/** The 409 of conflicting managers, with kube-apiserver's message and causes. */
function conflictError(conflicts: { manager: ManagedFieldsEntry; path: FieldPath }[]): ApiError {
  const who = (e: ManagedFieldsEntry) =>
    `"${e.manager}"${e.subresource ? ` with subresource "${e.subresource}"` : ''}${e.operation === 'Update' ? ` using ${e.apiVersion}` : ''}`;
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${who(c.manager)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${who(conflicts[0]!.manager)}: ${pathString(conflicts[0]!.path)}`;
  } else {
    const byManager = new Map<string, { manager: ManagedFieldsEntry; paths: string[] }>();
    for (const c of conflicts) {
      const id = identify(c.manager);
      const group = byManager.get(id) ?? { manager: c.manager, paths: [] };
      group.paths.push(pathString(c.path));
      byManager.set(id, group);
    }
    const lines = [...byManager.keys()].sort().flatMap((id) => {
      const g = byManager.get(id)!;
      return [`conflicts with ${who(g.manager)}:`, ...g.paths.map((p) => `- ${p}`)];
    });
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}

/** What an apply request asks. */
export interface ApplyRequest {
  manager: string;
  force: boolean;
  subresource: string;
}

/**
 * Server-side apply: merges the configuration into the live object (undefined to create), prunes
 * what this manager applied before and no longer applies (unless someone else owns it), and
 * records ownership; throws 409 when it would change a field another manager owns (unless forced).
 */
export function applyConfiguration(
  type: ResourceType,
  live: KubeObject | undefined,
  config: KubeObject,
  req: ApplyRequest,
): KubeObject {
  const t = ssaTypeOf(type);
  const base: KubeObject = live ?? { apiVersion: config.apiVersion, kind: config.kind, metadata: {} };
  const { managedFields: _ignored, ...configMeta } = config.metadata ?? {};
  const cfg: KubeObject = { ...config, metadata: configMeta };
  if (req.subresource === 'status') {
    for (const k of Object.keys(cfg)) {
      if (!['apiVersion', 'kind', 'metadata', 'status'].includes(k)) delete cfg[k];
    }
  } else if (type.statusSubresource) delete cfg.status;
  let next = merge(base, cfg, t) as KubeObject;
  const managers = decode(live, true);
  const entry = {
    manager: req.manager,
    operation: 'Apply' as const,
    apiVersion: apiVersionOf(type),
    ...(req.subresource ? { subresource: req.subresource } : {}),
  };
  const id = identify(entry);
  const last = managers.get(id)?.set;
  const set = toFieldSet(tracked(type, cfg, req.subresource), t);
  setEntry(managers, entry, set);
  if (last) {
    let owned = new FieldSet();
    for (const m of managers.values()) owned = owned.union(m.set);
    next = removeFields(next, t, last.difference(owned), owned.prefixes()) as KubeObject;
  }
  const diff = compare(tracked(type, live, req.subresource) ?? {}, tracked(type, next, req.subresource), t);
  const changed = diff.added.union(diff.modified);
  const conflicts: { manager: ManagedFieldsEntry; path: FieldPath }[] = [];
  for (const [key, m] of managers) {
    if (key === id) continue;
    const clash = m.set.intersection(changed);
    if (!req.force) for (const path of clash.values()) conflicts.push({ manager: m.entry, path });
    m.set = m.set.difference(clash).difference(diff.removed);
  }
  if (conflicts.length) throw conflictError(conflicts);
  next.metadata ??= {};
  next.metadata.managedFields = encode(managers);
  return next;
}

/** kube-apiserver's 422 for an apply without `fieldManager`. */
export function fieldManagerRequired(): ApiError {
  return invalid('PatchOptions', 'meta.k8s.io', '', [
    {
      reason: 'FieldValueRequired',
      field: 'fieldManager',
      message: 'Required value: is required for apply patch',
    },
  ]);
}

/** The manager of an ordinary write: `?fieldManager=` or the User-Agent up to its first `/`. */
export function managerOf(fieldManager: string | null, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const head = String(userAgent ?? '').split('/')[0]!;
  // The common case, printable ASCII within the limit, is the head as it is.
  if (head.length <= 128 && /^[\x20-\x7e]*$/.test(head)) return head;
  return [...head]
    .filter((c) => c >= ' ' && c !== '\u007f')
    .join('')
    .slice(0, 128);
}
