import { randomUUID } from 'node:crypto';
import { CrdConverter } from '../crd/conversion.ts';
import { ApiError, alreadyExists, badRequest, conflict, forbidden, invalid, notFound } from '../errors.ts';
import { resizedPod } from '../registry/builtins/pod-update.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import { apiVersionOf, type KubeObject, type ResourceType, resourceKey } from '../registry/types.ts';
import { decodeBuiltin } from '../schemas/builtin-kinds.ts';
import { recordUpdate } from '../ssa/field-manager.ts';
import type { Entry, Store } from '../store/store.ts';
import { deepEqual } from '../util/deep-equal.ts';
import { prepareCustomResource, validateObject } from '../validation/object-meta.ts';
import { type AdmissionHook, generatedName, nowRFC3339, type WriteOptions } from './context.ts';
import { statusWrite } from './status-write.ts';

const RESET_STATUS_ON_CREATE = new Set(['/pods', 'apps/deployments', 'apps/daemonsets']);
const MAX_INTERNAL_RETRIES = 8;

const clone = <T>(v: T): T => structuredClone(v);

/** Objects a delete removed for good (rather than marked for deletion), as `delete` returned them. */
const removedByDelete = new WeakSet<KubeObject>();

/** Whether `delete` removed this object for good (or, dry run, would have). */
export function wasRemoved(obj: KubeObject): boolean {
  return removedByDelete.has(obj);
}
const same = deepEqual;

/** kube-apiserver's 409 for a write based on an outdated resourceVersion. */
const modified = (type: ResourceType, name: string) =>
  conflict(
    type.plural,
    type.group,
    name,
    'the object has been modified; please apply your changes to the latest version and try again',
  );

/** The fields whose change bumps `metadata.generation`: everything but metadata and status. */
function generationFields(obj: KubeObject): unknown {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/** A patch function turns the current object into the desired one. */
export type PatchFn = (current: KubeObject) => KubeObject;

/** Options of a delete. */
export interface DeleteOptions extends WriteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

/**
 * Create, update, patch and delete with kube-apiserver's semantics: defaults, validation,
 * admission, optimistic concurrency, the status subresource, generation, finalizers and
 * graceful deletion. Every commit is atomic; nothing half-written is ever stored.
 * Objects returned are the stored ones: read-only for callers.
 */
export class ObjectService {
  admission: AdmissionHook | undefined;
  /** Called after a resource's object was removed for good (garbage collection hooks here). */
  onRemoved: ((type: ResourceType, obj: KubeObject, policy: string | undefined) => void) | undefined;

  private readonly store: Store;
  readonly registry: ResourceRegistry;

  /** Converts custom resources between their CRD's versions (stored at the storage version). */
  readonly converter: CrdConverter;

  constructor(store: Store, registry: ResourceRegistry) {
    this.store = store;
    this.registry = registry;
    this.converter = new CrdConverter(store);
  }

  /** The object as stored: a custom resource at its CRD's storage version. */
  private async stored(type: ResourceType, obj: KubeObject): Promise<KubeObject> {
    return CrdConverter.converts(type) ? this.converter.toStorage(type, obj) : obj;
  }

  /** The object as served at the type's version. */
  async served(type: ResourceType, obj: KubeObject): Promise<KubeObject> {
    return CrdConverter.converts(type) ? this.converter.toServed(type, obj) : obj;
  }

  private key(type: ResourceType): string {
    return resourceKey(type.group, type.plural);
  }

  /** The stored object or a 404. */
  getEntry(type: ResourceType, namespace: string, name: string): Entry {
    const e = this.store.get(this.key(type), type.namespaced ? namespace : '', name);
    if (!e) throw notFound(type.plural, type.group, name);
    return e;
  }

  private checkKind(type: ResourceType, obj: KubeObject): void {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      throw badRequest(`the body of the request must be a JSON object of kind ${type.kind}`);
    }
    const expected = apiVersionOf(type);
    if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
      throw badRequest(
        `the API version in the data (${obj.apiVersion}) does not match the expected API version (${expected})`,
      );
    }
    if (obj.kind !== undefined && obj.kind !== type.kind) {
      throw badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${type.kind})`);
    }
    obj.apiVersion = expected;
    obj.kind = type.kind;
    if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
    if (typeof obj.metadata !== 'object' || Array.isArray(obj.metadata))
      throw badRequest('metadata must be an object');
  }

  private checkNamespace(type: ResourceType, namespace: string, obj: KubeObject, creating: boolean): void {
    if (!type.namespaced) {
      delete obj.metadata!.namespace;
      return;
    }
    const given = obj.metadata!.namespace;
    if (given && given !== namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    obj.metadata!.namespace = namespace;
    if (!creating) return;
    const ns = this.store.get('/namespaces', '', namespace);
    if (!ns) throw notFound('namespaces', '', namespace);
    if (ns.obj.metadata?.deletionTimestamp) {
      throw forbidden(
        `${type.plural}${type.group ? `.${type.group}` : ''} "${obj.metadata!.name ?? ''}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        {
          name: obj.metadata!.name,
          group: type.group,
          kind: type.plural,
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${namespace} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      );
    }
  }

  private prepare(type: ResourceType, obj: KubeObject, options: WriteOptions): void {
    if (type.schema) {
      const pruned = prepareCustomResource(type, obj);
      if (pruned.length) {
        if (options.fieldValidation === 'Strict') {
          throw badRequest(
            `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: strict decoding error: ${pruned.map((p) => `unknown field "${p}"`).join(', ')}`,
          );
        }
        if (options.fieldValidation !== 'Ignore')
          options.warnings?.push(...pruned.map((p) => `unknown field "${p}"`));
      }
    }
  }

  /** Creates an object (POST). */
  async create(
    type: ResourceType,
    namespace: string,
    body: KubeObject,
    options: WriteOptions,
  ): Promise<KubeObject> {
    this.checkKind(type, body);
    decodeBuiltin(type, body, options);
    const obj = body;
    const meta = obj.metadata!;
    if (!meta.name && meta.generateName) meta.name = generatedName(String(meta.generateName));
    this.checkNamespace(type, namespace, obj, true);
    for (const f of [
      'uid',
      'resourceVersion',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'selfLink',
    ]) {
      delete meta[f];
    }
    if (!options.apply) delete meta.managedFields;
    meta.creationTimestamp = nowRFC3339();
    meta.uid = randomUUID();
    if (type.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    if (type.plural === 'namespaces')
      meta.labels = { ...meta.labels, 'kubernetes.io/metadata.name': meta.name };
    if ((type.crdName && type.statusSubresource) || RESET_STATUS_ON_CREATE.has(this.key(type)))
      delete obj.status;
    type.defaults?.(obj);
    type.normalize?.(obj);
    if (options.fieldManager !== undefined && !options.apply)
      recordUpdate(type, undefined, obj, options.fieldManager, '');
    this.prepare(type, obj, options);
    const result = await this.admit(
      'mutating',
      type,
      'CREATE',
      namespace,
      meta.name ?? '',
      obj,
      undefined,
      options,
    );
    if (result !== obj) {
      this.checkKind(type, result);
      this.checkNamespace(type, namespace, result, false);
      this.prepare(type, result, options);
    }
    validateObject(type, result, undefined);
    await this.admit(
      'validating',
      type,
      'CREATE',
      namespace,
      result.metadata!.name,
      result,
      undefined,
      options,
    );
    const name = result.metadata!.name as string;
    if (options.dryRun) {
      if (this.store.get(this.key(type), type.namespaced ? namespace : '', name))
        throw alreadyExists(type.plural, type.group, name);
      return result;
    }
    const toStore = await this.stored(type, result);
    // The namespace may have started terminating while admission (or conversion) ran.
    this.checkNamespace(type, namespace, toStore, true);
    const entry = this.store.commit(this.key(type), type.namespaced ? namespace : '', name, (current) => {
      if (current) throw alreadyExists(type.plural, type.group, name);
      return toStore;
    });
    return this.served(type, entry!.obj);
  }

  /**
   * Replaces an object (PUT) or, with `patch`, computes the new object from the current one.
   * Status subresource rules, generation, finalizers and conflicts are applied here.
   */
  async update(
    type: ResourceType,
    namespace: string,
    name: string,
    input: { body: KubeObject } | { patch: PatchFn },
    options: WriteOptions,
  ): Promise<KubeObject> {
    const ns = type.namespaced ? namespace : '';
    const subresource = options.subresource ?? '';
    // A body is the request's own parse: the write may change it in place. Only a body without a
    // resourceVersion is written again after a race, so only that one is kept as it came.
    const bodyRV = 'body' in input ? input.body?.metadata?.resourceVersion : undefined;
    const pristine = 'body' in input && !bodyRV ? clone(input.body) : undefined;
    for (let attempt = 0; ; attempt++) {
      const current = this.getEntry(type, ns, name);
      const old: KubeObject = await this.served(type, current.obj);
      let desired: KubeObject;
      if ('body' in input) {
        desired = pristine ? clone(pristine) : input.body;
        this.checkKind(type, desired);
        decodeBuiltin(type, desired, options);
        if (desired.metadata!.name && desired.metadata!.name !== name) {
          throw badRequest(
            `the name of the object (${desired.metadata!.name}) does not match the name on the URL (${name})`,
          );
        }
        const uid = desired.metadata!.uid;
        if (uid && uid !== old.metadata?.uid) {
          // kube-apiserver turns the body's uid into a precondition of the write.
          throw conflict(
            type.plural,
            type.group,
            name,
            `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${old.metadata?.uid}`,
          );
        }
        const rv = desired.metadata!.resourceVersion;
        if (!rv && type.crdName) {
          throw invalid(type.kind, type.group, name, [
            {
              reason: 'FieldValueInvalid',
              field: 'metadata.resourceVersion',
              message: 'Invalid value: 0x0: must be specified for an update',
            },
          ]);
        }
        if (rv && rv !== old.metadata?.resourceVersion) {
          throw modified(type, name);
        }
      } else {
        desired = input.patch(clone(old));
        this.checkKind(type, desired);
        decodeBuiltin(type, desired, options);
        const uid = desired.metadata!.uid;
        if (uid !== undefined && uid !== old.metadata?.uid) {
          throw invalid(type.kind, type.group, name, [
            {
              reason: 'FieldValueInvalid',
              field: 'metadata.uid',
              message: `Invalid value: ${JSON.stringify(uid)}: field is immutable`,
            },
          ]);
        }
        const rv = desired.metadata!.resourceVersion;
        if (rv && rv !== old.metadata?.resourceVersion) {
          throw modified(type, name);
        }
        if (desired.metadata!.name !== undefined && desired.metadata!.name !== name) {
          throw badRequest(
            `the name of the object (${desired.metadata!.name}) does not match the name on the URL (${name})`,
          );
        }
      }
      let next = this.merge(type, old, desired, subresource);
      type.normalize?.(next);
      if (options.fieldManager !== undefined && !options.apply)
        recordUpdate(type, old, next, options.fieldManager, subresource);
      this.checkNamespace(type, namespace, next, false);
      this.prepare(type, next, options);
      const mutated = await this.admit('mutating', type, 'UPDATE', ns, name, next, old, options);
      if (mutated !== next) {
        this.checkKind(type, mutated);
        next = this.merge(type, old, mutated, subresource);
        this.prepare(type, next, options);
      }
      validateObject(type, next, old, subresource);
      this.checkFinalizers(type, old, next);
      await this.admit('validating', type, 'UPDATE', ns, name, next, old, options);
      if (type.tracksGeneration && !same(generationFields(old), generationFields(next))) {
        next.metadata!.generation = (old.metadata?.generation ?? 0) + 1;
      }
      const unchanged = same(
        { ...next, metadata: { ...next.metadata, resourceVersion: '' } },
        { ...old, metadata: { ...old.metadata, resourceVersion: '' } },
      );
      if (options.dryRun || unchanged) return unchanged ? old : next;
      const toStore = await this.stored(type, next);
      const finished =
        Boolean(next.metadata?.deletionTimestamp) &&
        !next.metadata?.finalizers?.length &&
        !this.blocksDeletion(type, next);
      let raced = false;
      const entry = this.store.commit(this.key(type), ns, name, (now) => {
        if (!now) throw notFound(type.plural, type.group, name);
        if (now.rv !== current.rv) {
          raced = true;
          return undefined;
        }
        return finished ? null : toStore;
      });
      if (raced) {
        if (bodyRV) throw modified(type, name);
        if (attempt < MAX_INTERNAL_RETRIES) continue;
        throw modified(type, name);
      }
      if (finished) {
        this.onRemoved?.(type, toStore, undefined);
        return next;
      }
      return this.served(type, entry!.obj);
    }
  }

  /** Runs one admission phase when webhooks are wired; returns the object, mutated or as it was. */
  private async admit<T extends KubeObject | undefined>(
    phase: 'mutating' | 'validating',
    type: ResourceType,
    operation: 'CREATE' | 'UPDATE' | 'DELETE',
    namespace: string,
    name: string,
    object: T,
    oldObject: KubeObject | undefined,
    options: WriteOptions,
  ): Promise<T> {
    if (!this.admission) return object;
    const subresource = operation === 'DELETE' ? '' : (options.subresource ?? '');
    const out = await this.admission({
      type,
      operation,
      subresource,
      namespace,
      name,
      object,
      oldObject,
      options,
      phase,
    });
    return (out ?? object) as T;
  }

  /** Builds the object to store from the old one and the desired one, per subresource. */
  private merge(type: ResourceType, old: KubeObject, desired: KubeObject, subresource: string): KubeObject {
    let next: KubeObject;
    if (subresource === 'status') {
      next = statusWrite(type, old, desired);
    } else if (subresource === 'resize') {
      next = resizedPod(old, desired);
    } else if (subresource === 'finalize') {
      next = clone(old);
      next.spec = { ...next.spec, finalizers: desired.spec?.finalizers ?? [] };
    } else {
      next = desired;
      if (type.statusSubresource) {
        if (old.status === undefined) delete next.status;
        else next.status = clone(old.status);
      }
    }
    next.metadata ??= {};
    const meta = next.metadata;
    const oldMeta = old.metadata ?? {};
    for (const f of [
      'uid',
      'creationTimestamp',
      'namespace',
      'name',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'generation',
    ]) {
      if (oldMeta[f] === undefined) delete meta[f];
      else meta[f] = oldMeta[f];
    }
    meta.resourceVersion = oldMeta.resourceVersion;
    if (type.plural === 'namespaces')
      meta.labels = { ...meta.labels, 'kubernetes.io/metadata.name': oldMeta.name };
    return next;
  }

  private checkFinalizers(type: ResourceType, old: KubeObject, next: KubeObject): void {
    if (!old.metadata?.deletionTimestamp) return;
    const before = new Set<string>(old.metadata.finalizers ?? []);
    const added = (next.metadata?.finalizers ?? []).filter((f: string) => !before.has(f));
    if (added.length) {
      throw invalid(type.kind, type.group, old.metadata.name, [
        {
          reason: 'FieldValueForbidden',
          field: 'metadata.finalizers',
          message: 'Forbidden: no new finalizers can be added if the object is being deleted',
        },
      ]);
    }
  }

  /**
   * Whether something besides metadata.finalizers holds a deleting object: a pod on a node waits
   * for its kubelet (here: the local node) to confirm, a namespace for its contents to go.
   */
  private blocksDeletion(type: ResourceType, obj: KubeObject): boolean {
    const key = this.key(type);
    if (key === '/pods') return (obj.metadata?.deletionGracePeriodSeconds ?? 0) > 0;
    if (key === '/namespaces') return (obj.spec?.finalizers ?? []).length > 0;
    return false;
  }

  /** Deletes an object: at once, or by marking it with a deletionTimestamp while finalizers or a grace period remain. */
  async delete(
    type: ResourceType,
    namespace: string,
    name: string,
    options: DeleteOptions,
  ): Promise<KubeObject> {
    const out = await this.deleteStored(type, namespace, name, options);
    if (!CrdConverter.converts(type)) return out;
    const served = await this.served(type, out);
    if (wasRemoved(out)) removedByDelete.add(served);
    return served;
  }

  private async deleteStored(
    type: ResourceType,
    namespace: string,
    name: string,
    options: DeleteOptions,
  ): Promise<KubeObject> {
    const ns = type.namespaced ? namespace : '';
    for (let attempt = 0; ; attempt++) {
      const current = this.getEntry(type, ns, name);
      const old = current.obj;
      const pre = options.preconditions;
      if (pre?.uid && pre.uid !== old.metadata?.uid) {
        throw conflict(
          type.plural,
          type.group,
          name,
          `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata?.uid}`,
        );
      }
      if (pre?.resourceVersion && pre.resourceVersion !== old.metadata?.resourceVersion) {
        throw conflict(
          type.plural,
          type.group,
          name,
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata?.resourceVersion}`,
        );
      }
      for (const phase of ['mutating', 'validating'] as const) {
        await this.admit(phase, type, 'DELETE', ns, name, undefined, old, options);
      }
      const next = clone(old);
      const meta = next.metadata!;
      const finalizers: string[] = [...(meta.finalizers ?? [])];
      if (options.propagationPolicy === 'Foreground' && !finalizers.includes('foregroundDeletion'))
        finalizers.push('foregroundDeletion');
      if (options.propagationPolicy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
      let grace = 0;
      if (
        this.key(type) === '/pods' &&
        next.spec?.nodeName &&
        !['Succeeded', 'Failed'].includes(next.status?.phase)
      ) {
        grace = options.gracePeriodSeconds ?? next.spec?.terminationGracePeriodSeconds ?? 30;
        if (meta.deletionGracePeriodSeconds !== undefined)
          grace = Math.min(grace, meta.deletionGracePeriodSeconds);
      }
      if (this.key(type) === '/namespaces') next.status = { ...next.status, phase: 'Terminating' };
      const keep =
        finalizers.length > 0 ||
        grace > 0 ||
        (this.key(type) === '/namespaces' && this.blocksDeletion(type, next));
      if (options.dryRun) {
        if (!keep) removedByDelete.add(next);
        return next;
      }
      let raced = false;
      let removed = false;
      const entry = this.store.commit(this.key(type), ns, name, (now) => {
        if (!now) throw notFound(type.plural, type.group, name);
        if (now.rv !== current.rv) {
          raced = true;
          return undefined;
        }
        if (!keep) {
          removed = true;
          return null;
        }
        if (
          meta.deletionTimestamp &&
          meta.deletionGracePeriodSeconds === grace &&
          same(meta.finalizers ?? [], finalizers)
        )
          return undefined;
        meta.deletionTimestamp ??= nowRFC3339();
        meta.deletionGracePeriodSeconds = grace;
        meta.finalizers = finalizers;
        if (!finalizers.length) delete meta.finalizers;
        return next;
      });
      if (raced) {
        if (attempt < MAX_INTERNAL_RETRIES) continue;
        throw modified(type, name);
      }
      if (removed) {
        this.onRemoved?.(type, old, options.propagationPolicy);
        removedByDelete.add(old);
        return old;
      }
      return entry ? entry.obj : next;
    }
  }

  /** Finds the type served for `apiVersion`/`kind`, or throws 404. */
  typeOf(apiVersion: string, kind: string): ResourceType {
    const type = this.registry.byKind(apiVersion, kind);
    if (!type)
      throw new ApiError(404, 'NotFound', `no matches for kind "${kind}" in version "${apiVersion}"`);
    return type;
  }
}
