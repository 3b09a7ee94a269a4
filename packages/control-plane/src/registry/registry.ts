import { ACCESS_REVIEW_RESOURCES } from './builtins/access-reviews.ts';
import { API_EXTENSION_RESOURCES } from './builtins/api-extensions.ts';
import { APPS_RESOURCES } from './builtins/apps.ts';
import { BATCH_RESOURCES } from './builtins/batch.ts';
import { COORDINATION_RESOURCES } from './builtins/coordination.ts';
import { CORE_RESOURCES } from './builtins/core.ts';
import { DISCOVERY_RESOURCES } from './builtins/discovery.ts';
import { EVENT_RESOURCES } from './builtins/events.ts';
import { NETWORKING_RESOURCES } from './builtins/networking.ts';
import { POLICY_RESOURCES } from './builtins/policy.ts';
import { RBAC_RESOURCES } from './builtins/rbac.ts';
import { REPLICATION_CONTROLLER_RESOURCES } from './builtins/replication-controllers.ts';
import { CORE_STORAGE_RESOURCES, STORAGE_RESOURCES } from './builtins/storage.ts';
import { type ResourceType, resourceKey } from './types.ts';

/** Every built-in resource, in the order discovery lists them. */
const BUILTIN_RESOURCES: ResourceType[] = [
  ...CORE_RESOURCES,
  ...CORE_STORAGE_RESOURCES,
  ...REPLICATION_CONTROLLER_RESOURCES,
  ...EVENT_RESOURCES,
  ...APPS_RESOURCES,
  ...BATCH_RESOURCES,
  ...NETWORKING_RESOURCES,
  ...DISCOVERY_RESOURCES,
  ...POLICY_RESOURCES,
  ...STORAGE_RESOURCES,
  ...COORDINATION_RESOURCES,
  ...API_EXTENSION_RESOURCES,
  ...RBAC_RESOURCES,
  ...ACCESS_REVIEW_RESOURCES,
];

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Kubernetes' version priority (discovery lists versions in it; the first is preferred): GA before
 * beta before alpha, higher numbers first, then versions not of that form in alphabetical order.
 */
export function compareVersionPriority(a: string, b: string): number {
  const rank = (v: string): [number, number, number] | undefined => {
    const m = KUBE_VERSION.exec(v);
    if (!m) return undefined;
    return [m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1, Number(m[1]), Number(m[3] ?? 0)];
  };
  const ra = rank(a);
  const rb = rank(b);
  if (!ra || !rb) return ra ? -1 : rb ? 1 : a.localeCompare(b);
  return rb[0] - ra[0] || rb[1] - ra[1] || rb[2] - ra[2];
}

/** The resources the server knows: built-ins plus those of established CRDs. */
export class ResourceRegistry {
  private readonly byKey = new Map<string, ResourceType>();
  private readonly byGroupVersionPlural = new Map<string, ResourceType>();

  constructor() {
    for (const type of BUILTIN_RESOURCES) this.add(type);
  }

  /** Adds or replaces a resource type. */
  add(type: ResourceType): void {
    this.byKey.set(resourceKey(type.group, type.plural), type);
    this.byGroupVersionPlural.set(`${type.group}/${type.version}/${type.plural}`, type);
  }

  /** Removes a resource type (a deleted CRD). */
  remove(group: string, version: string, plural: string): void {
    this.byGroupVersionPlural.delete(`${group}/${version}/${plural}`);
    const key = resourceKey(group, plural);
    const type = this.byKey.get(key);
    if (type && type.version === version) this.byKey.delete(key);
  }

  /** The type served at `/apis/<group>/<version>/<plural>`. */
  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    return this.byGroupVersionPlural.get(`${group}/${version}/${plural}`);
  }

  /** The type stored under `group/plural`. */
  byResource(group: string, plural: string): ResourceType | undefined {
    return this.byKey.get(resourceKey(group, plural));
  }

  /** The type of a kind in an apiVersion. */
  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    for (const type of this.byGroupVersionPlural.values()) {
      const av = type.group ? `${type.group}/${type.version}` : type.version;
      if (av === apiVersion && type.kind === kind) return type;
    }
    return undefined;
  }

  /** Every served type. */
  all(): ResourceType[] {
    return [...this.byGroupVersionPlural.values()];
  }

  /** Group → versions, in the order groups were first seen. */
  groups(): Map<string, string[]> {
    const groups = new Map<string, string[]>();
    for (const type of this.byGroupVersionPlural.values()) {
      const versions = groups.get(type.group) ?? [];
      if (!versions.includes(type.version)) versions.push(type.version);
      groups.set(type.group, versions);
    }
    for (const versions of groups.values()) versions.sort(compareVersionPriority);
    return groups;
  }
}
