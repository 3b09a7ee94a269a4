import { parseFeatureGates } from '@kruise/api';
import type { AdmissionRequest, AdmissionResponse } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { webhookConfigurations } from '../src/index.ts';
import type { DeletionProtectionLookups } from '../src/webhooks/deletion-protection/validating.ts';
import { webhookRoutes } from '../src/webhooks/paths.ts';

/**
 * Deletion protection (label `policy.kruise.io/delete-protection`) through every webhook that
 * applies it: each kind × Always / Cascading × with and without dependants, objects already being
 * deleted, the gates, and upstream's messages word for word.
 */
const ON = parseFeatureGates('ResourcesDeletionProtection=true');
const ON_CRD = parseFeatureGates(
  'ResourcesDeletionProtection=true,DeletionProtectionForCRDCascadingGate=true',
);
const OFF = parseFeatureGates('');
const LABEL = 'policy.kruise.io/delete-protection';
const FORBIDDEN = `forbidden by ResourcesProtectionDeletion for ${LABEL}`;

interface World {
  pods?: { phase?: string; deleting?: boolean }[];
  claims?: { phase?: string; deleting?: boolean }[];
  crs?: { deleting?: boolean }[];
  fail?: string;
}

const deleting = (yes?: boolean) => (yes ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {});

function lookups(world: World, seen: string[] = []): DeletionProtectionLookups {
  const fail = () => (world.fail ? Promise.reject(new Error(world.fail)) : undefined);
  return {
    pods: async (ns) => {
      seen.push(`pods ${ns}`);
      await fail();
      return (world.pods ?? []).map((p) => ({ metadata: deleting(p.deleting), status: { phase: p.phase } }));
    },
    persistentVolumeClaims: async (ns) => {
      seen.push(`pvcs ${ns}`);
      await fail();
      return (world.claims ?? []).map((c) => ({
        metadata: deleting(c.deleting),
        status: { phase: c.phase },
      }));
    },
    customResources: async (group, version, plural) => {
      seen.push(`crs ${group}/${version}/${plural}`);
      await fail();
      return (world.crs ?? []).map((c) => ({ metadata: deleting(c.deleting) }));
    },
  };
}

const KINDS: Record<string, { path: string; group: string; version: string }> = {
  Deployment: { path: '/validate-apps-deployment', group: 'apps', version: 'v1' },
  ReplicaSet: { path: '/validate-apps-replicaset', group: 'apps', version: 'v1' },
  StatefulSet: { path: '/validate-apps-statefulset', group: 'apps', version: 'v1' },
  CloneSet: {
    path: '/validate-apps-kruise-io-v1alpha1-cloneset',
    group: 'apps.kruise.io',
    version: 'v1alpha1',
  },
  AdvancedStatefulSet: {
    path: '/validate-apps-kruise-io-statefulset',
    group: 'apps.kruise.io',
    version: 'v1beta1',
  },
  Namespace: { path: '/validate-namespace', group: '', version: 'v1' },
  Service: { path: '/validate-service', group: '', version: 'v1' },
  Ingress: { path: '/validate-ingress', group: 'networking.k8s.io', version: 'v1' },
  CustomResourceDefinition: {
    path: '/validate-customresourcedefinition',
    group: 'apiextensions.k8s.io',
    version: 'v1',
  },
};

const CRD_SPEC = {
  group: 'example.com',
  names: { plural: 'widgets', kind: 'Widget', listKind: 'WidgetList' },
  scope: 'Namespaced',
  versions: [
    { name: 'v1alpha1', served: true, storage: false },
    { name: 'v1', served: true, storage: true },
  ],
};

function stored(
  kind: string,
  label: string | undefined,
  extra: { replicas?: number; deleting?: boolean } = {},
) {
  const metadata = {
    name: 'x',
    ...(kind === 'Namespace' || kind === 'CustomResourceDefinition' ? {} : { namespace: 'default' }),
    ...(label === undefined ? {} : { labels: { [LABEL]: label } }),
    ...deleting(extra.deleting),
  };
  if (kind === 'CustomResourceDefinition') return { metadata, spec: CRD_SPEC };
  if (kind === 'Namespace' || kind === 'Service' || kind === 'Ingress') return { metadata, spec: {} };
  return {
    metadata,
    spec: {
      ...(extra.replicas === undefined ? {} : { replicas: extra.replicas }),
      selector: { matchLabels: { app: 'x' } },
      template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
}

async function remove(
  kind: string,
  old: unknown,
  options: { gates?: typeof ON; world?: World; seen?: string[]; subResource?: string } = {},
): Promise<AdmissionResponse> {
  const k = KINDS[kind]!;
  const routes = webhookRoutes(options.gates ?? ON, { deletion: lookups(options.world ?? {}, options.seen) });
  const route = routes.find((r) => r.path === k.path && !r.mutating)!;
  const request: AdmissionRequest = {
    uid: 'u',
    kind: { group: k.group, version: k.version, kind: kind === 'AdvancedStatefulSet' ? 'StatefulSet' : kind },
    resource: { group: k.group, version: k.version, resource: route.plural },
    operation: 'DELETE',
    name: 'x',
    oldObject: old,
    ...(options.subResource ? { subResource: options.subResource } : {}),
  };
  return route.handler(request);
}

const denial = (message: string) => ({ allowed: false, status: { code: 403, message } });

const WORKLOADS = ['Deployment', 'ReplicaSet', 'StatefulSet', 'CloneSet', 'AdvancedStatefulSet'];

describe('deletion protection of workloads (replicas are the dependants)', () => {
  it.each(WORKLOADS)('%s: Always refuses whatever the replicas', async (kind) => {
    for (const replicas of [undefined, 0, 3]) {
      expect(await remove(kind, stored(kind, 'Always', { replicas }))).toEqual(denial(`${FORBIDDEN}=Always`));
    }
  });

  it.each(WORKLOADS)('%s: Cascading refuses while replicas > 0, then lets go', async (kind) => {
    expect(await remove(kind, stored(kind, 'Cascading', { replicas: 3 }))).toEqual(
      denial(`${FORBIDDEN}=Cascading and replicas 3>0`),
    );
    expect(await remove(kind, stored(kind, 'Cascading', { replicas: 0 }))).toEqual({ allowed: true });
  });

  it.each(WORKLOADS)('%s: no label, another value, being deleted or gate off all let go', async (kind) => {
    expect(await remove(kind, stored(kind, undefined, { replicas: 3 }))).toEqual({ allowed: true });
    expect(await remove(kind, stored(kind, 'always', { replicas: 3 }))).toEqual({ allowed: true });
    expect(await remove(kind, stored(kind, 'Always', { replicas: 3, deleting: true }))).toEqual({
      allowed: true,
    });
    expect(await remove(kind, stored(kind, 'Always'), { gates: OFF })).toEqual({ allowed: true });
  });
});

describe('deletion protection of Services and Ingresses (Always only)', () => {
  it.each(['Service', 'Ingress'])(
    '%s: Always refuses; Cascading, being deleted and gate off let go',
    async (kind) => {
      expect(await remove(kind, stored(kind, 'Always'))).toEqual(denial(`${FORBIDDEN}=Always`));
      expect(await remove(kind, stored(kind, 'Cascading'))).toEqual({ allowed: true });
      expect(await remove(kind, stored(kind, 'Always', { deleting: true }))).toEqual({ allowed: true });
      expect(await remove(kind, stored(kind, 'Always'), { gates: OFF })).toEqual({ allowed: true });
    },
  );
});

describe('deletion protection of namespaces (active pods, then Bound PVCs)', () => {
  const ns = (label?: string, extra = {}) => stored('Namespace', label, extra);

  it('Always refuses without listing anything', async () => {
    const seen: string[] = [];
    expect(await remove('Namespace', ns('Always'), { seen })).toEqual(denial(`${FORBIDDEN}=Always`));
    expect(seen).toEqual([]);
  });

  it('Cascading counts active pods only (not Succeeded, Failed or being deleted)', async () => {
    const seen: string[] = [];
    const world = {
      pods: [
        { phase: 'Running' },
        { phase: 'Pending' },
        { phase: 'Succeeded' },
        { phase: 'Failed' },
        { phase: 'Running', deleting: true },
      ],
    };
    expect(await remove('Namespace', ns('Cascading'), { world, seen })).toEqual(
      denial(`${FORBIDDEN}=Cascading and active pods 2>0`),
    );
    expect(seen).toEqual(['pods x']);
  });

  it('Cascading with no active pods counts Bound PVCs not being deleted', async () => {
    const world = {
      pods: [{ phase: 'Succeeded' }],
      claims: [
        { phase: 'Bound' },
        { phase: 'Pending' },
        { phase: 'Bound', deleting: true },
        { phase: 'Lost' },
      ],
    };
    expect(await remove('Namespace', ns('Cascading'), { world })).toEqual(
      denial(`${FORBIDDEN}=Cascading and "Bound" status pvc 1>0`),
    );
  });

  it('Cascading with neither lets go; being deleted and gate off let go without listing', async () => {
    expect(await remove('Namespace', ns('Cascading'), { world: { claims: [{ phase: 'Pending' }] } })).toEqual(
      {
        allowed: true,
      },
    );
    const seen: string[] = [];
    const world = { pods: [{ phase: 'Running' }] };
    expect(await remove('Namespace', ns('Cascading', { deleting: true }), { world, seen })).toEqual({
      allowed: true,
    });
    expect(await remove('Namespace', ns('Cascading'), { world, seen, gates: OFF })).toEqual({
      allowed: true,
    });
    expect(seen).toEqual([]);
  });

  it('a failed list refuses in upstream words', async () => {
    expect(await remove('Namespace', ns('Cascading'), { world: { fail: 'boom' } })).toEqual(
      denial('forbidden by ResourcesProtectionDeletion for list pods error: boom'),
    );
    const claimsFail = lookups({});
    claimsFail.persistentVolumeClaims = () => Promise.reject(new Error('forbidden'));
    const route = webhookRoutes(ON, { deletion: claimsFail }).find((r) => r.path === '/validate-namespace')!;
    expect(
      await route.handler({
        uid: 'u',
        kind: { group: '', version: 'v1', kind: 'Namespace' },
        resource: { group: '', version: 'v1', resource: 'namespaces' },
        operation: 'DELETE',
        oldObject: ns('Cascading'),
      }),
    ).toEqual(denial('forbidden by ResourcesProtectionDeletion for list pvc error: forbidden'));
  });
});

describe('deletion protection of CustomResourceDefinitions (active CRs, own gate)', () => {
  const crd = (label?: string, extra = {}) => stored('CustomResourceDefinition', label, extra);

  it('Always refuses', async () => {
    expect(await remove('CustomResourceDefinition', crd('Always'))).toEqual(denial(`${FORBIDDEN}=Always`));
  });

  it('Cascading needs DeletionProtectionForCRDCascadingGate', async () => {
    expect(await remove('CustomResourceDefinition', crd('Cascading'))).toEqual(
      denial('feature-gate DeletionProtectionForCRDCascadingGate is not enabled'),
    );
  });

  it('Cascading refuses while CRs not being deleted exist, listed at the storage version', async () => {
    const seen: string[] = [];
    const world = { crs: [{}, {}, { deleting: true }] };
    expect(
      await remove('CustomResourceDefinition', crd('Cascading'), { gates: ON_CRD, world, seen }),
    ).toEqual(denial(`${FORBIDDEN}=Cascading and active CRs 2>0`));
    expect(seen).toEqual(['crs example.com/v1/widgets']);
    const gone = { crs: [{ deleting: true }] };
    expect(
      await remove('CustomResourceDefinition', crd('Cascading'), { gates: ON_CRD, world: gone }),
    ).toEqual({
      allowed: true,
    });
  });

  it('a failed list refuses, naming the list kind', async () => {
    expect(
      await remove('CustomResourceDefinition', crd('Cascading'), {
        gates: ON_CRD,
        world: { fail: 'forbidden' },
      }),
    ).toEqual(denial('failed to list CRs of example.com/v1, Kind=WidgetList: forbidden'));
  });

  it('being deleted lets go; the CRD gate alone does nothing without ResourcesDeletionProtection', async () => {
    expect(await remove('CustomResourceDefinition', crd('Always', { deleting: true }))).toEqual({
      allowed: true,
    });
    const crdOnly = parseFeatureGates('DeletionProtectionForCRDCascadingGate=true');
    expect(crdOnly.enabled('DeletionProtectionForCRDCascadingGate')).toBe(false);
    expect(await remove('CustomResourceDefinition', crd('Always'), { gates: crdOnly })).toEqual({
      allowed: true,
    });
  });
});

describe('the webhooks', () => {
  it('let through other operations, subresources and requests without an old object', async () => {
    expect(await remove('Deployment', undefined)).toEqual({ allowed: true });
    expect(await remove('Service', stored('Service', 'Always'), { subResource: 'status' })).toEqual({
      allowed: true,
    });
  });

  it('are configured as upstream: names, paths, DELETE only, objectSelector "label exists"', () => {
    const hooks = webhookConfigurations(OFF).validating.webhooks;
    const byName = Object.fromEntries(hooks.map((h) => [h.name, h]));
    const expected: [string, string, string, string[], string][] = [
      ['vbuiltindeployment.kb.io', '/validate-apps-deployment', 'apps', ['v1'], 'deployments'],
      ['vbuiltinreplicaset.kb.io', '/validate-apps-replicaset', 'apps', ['v1'], 'replicasets'],
      ['vbuiltinstatefulset.kb.io', '/validate-apps-statefulset', 'apps', ['v1'], 'statefulsets'],
      ['vnamespace.kb.io', '/validate-namespace', '', ['v1'], 'namespaces'],
      ['vservice.kb.io', '/validate-service', '', ['v1'], 'services'],
      ['vingress.kb.io', '/validate-ingress', 'networking.k8s.io', ['v1', 'v1beta1'], 'ingresses'],
      [
        'vcustomresourcedefinition.kb.io',
        '/validate-customresourcedefinition',
        'apiextensions.k8s.io',
        ['v1', 'v1beta1'],
        'customresourcedefinitions',
      ],
    ];
    for (const [name, path, group, versions, plural] of expected) {
      const hook = byName[name]!;
      expect(hook.clientConfig.service.path).toBe(path);
      expect(hook.objectSelector).toEqual({ matchExpressions: [{ key: LABEL, operator: 'Exists' }] });
      expect(hook.rules).toEqual([
        {
          apiGroups: [group],
          apiVersions: versions,
          operations: ['DELETE'],
          resources: [plural],
          scope: '*',
        },
      ]);
    }
    expect(byName['vcloneset.kb.io']!.rules[0]!.operations).toContain('DELETE');
    expect(byName['vstatefulset.kb.io']!.rules[0]!.operations).toContain('DELETE');
  });
});
