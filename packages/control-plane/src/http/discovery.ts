import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/types.ts';

/** The Kubernetes version this server reports. */
export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-kruise-control-plane',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const preferredVersion = (group: string, versions: string[]) => ({
  groupVersion: group ? `${group}/${versions[0]}` : versions[0],
  version: versions[0],
});

/** `/api`: the core group's versions. */
export function apiVersions() {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }],
  };
}

/** `/apis`: every named group. */
export function apiGroupList(registry: ResourceRegistry) {
  const groups = [...registry.groups()].filter(([g]) => g !== '');
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: groups.map(([name, versions]) => ({
      name,
      versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
      preferredVersion: preferredVersion(name, versions),
    })),
  };
}

/** `/apis/<group>`: one group. */
export function apiGroup(registry: ResourceRegistry, group: string) {
  const versions = registry.groups().get(group);
  if (!versions) return undefined;
  return {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: group,
    versions: versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v })),
    preferredVersion: preferredVersion(group, versions),
  };
}

function resourceEntries(type: ResourceType) {
  const main = {
    name: type.plural,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: type.verbs,
    ...(type.shortNames.length ? { shortNames: type.shortNames } : {}),
    ...(type.categories.length ? { categories: type.categories } : {}),
  };
  const subs = [];
  if (type.statusSubresource) {
    subs.push({
      name: `${type.plural}/status`,
      singularName: '',
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: ['get', 'patch', 'update'],
    });
  }
  for (const sub of type.subresources) {
    const kind =
      sub === 'token'
        ? 'TokenRequest'
        : sub === 'scale'
          ? 'Scale'
          : sub === 'eviction'
            ? 'Eviction'
            : sub === 'binding'
              ? 'Binding'
              : type.kind;
    const verbs =
      sub === 'token' || sub === 'eviction' || sub === 'binding'
        ? ['create']
        : sub === 'finalize'
          ? ['update']
          : ['get', 'patch', 'update'];
    subs.push({
      name: `${type.plural}/${sub}`,
      singularName: '',
      namespaced: type.namespaced,
      kind,
      verbs,
      ...(sub === 'scale' ? { group: 'autoscaling', version: 'v1' } : {}),
      // kubectl drain evicts through the group/version named here (deletes pods when absent).
      ...(sub === 'eviction' ? { group: 'policy', version: 'v1' } : {}),
    });
  }
  return [main, ...subs];
}

/** `/api/v1` or `/apis/<group>/<version>`: the resources served there. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string) {
  const types = registry.all().filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: types.flatMap(resourceEntries),
  };
}
