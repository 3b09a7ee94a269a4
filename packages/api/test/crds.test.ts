import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildCustomResourceDefinition, KRUISE_RESOURCES, renderCrdFiles } from '../src/schemas.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Walks a schema and reports what a structural schema forbids. */
function structuralProblems(schema: any, path = ''): string[] {
  const problems: string[] = [];
  if (schema === null || typeof schema !== 'object') return problems;
  if (
    !schema.type &&
    !schema['x-kubernetes-int-or-string'] &&
    !schema['x-kubernetes-preserve-unknown-fields']
  ) {
    problems.push(`${path || '/'}: no type`);
  }
  if ('patternProperties' in schema) problems.push(`${path}: patternProperties`);
  if ('$ref' in schema) problems.push(`${path}: $ref`);
  if (schema.properties && schema.additionalProperties)
    problems.push(`${path}: properties and additionalProperties`);
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    problems.push(...structuralProblems(sub, `${path}.${name}`));
  }
  if (schema.items) problems.push(...structuralProblems(schema.items, `${path}[]`));
  if (typeof schema.additionalProperties === 'object') {
    problems.push(...structuralProblems(schema.additionalProperties, `${path}{}`));
  }
  for (const required of schema.required ?? []) {
    if (!schema.properties?.[required]) problems.push(`${path}: required ${required} is not a property`);
  }
  return problems;
}

describe('deploy/crds', () => {
  it('matches the generator output (run `pnpm generate` after changing a schema)', () => {
    const rendered = renderCrdFiles();
    const committed = readdirSync(join(root, 'deploy/crds')).filter((f) => f.endsWith('.yaml'));
    expect(committed.sort()).toEqual([...rendered.keys()].map((p) => p.replace('deploy/crds/', '')).sort());
    for (const [path, text] of rendered) {
      expect(readFileSync(join(root, path), 'utf8'), `${path} is stale: run pnpm generate`).toBe(text);
    }
  });

  it.each(KRUISE_RESOURCES.map((r) => [r.kind, r] as const))(
    '%s has a structural schema at every version',
    (_kind, resource) => {
      const crd = buildCustomResourceDefinition(resource) as any;
      for (const version of crd.spec.versions) {
        const schema = version.schema.openAPIV3Schema;
        expect(structuralProblems(schema), version.name).toEqual([]);
        expect(schema.properties.metadata).toEqual({ type: 'object' });
        expect(version.subresources).toEqual(
          resource.kind === 'CloneSet' || resource.kind === 'StatefulSet'
            ? {
                status: {},
                scale: {
                  specReplicasPath: '.spec.replicas',
                  statusReplicasPath: '.status.replicas',
                  labelSelectorPath: '.status.labelSelector',
                },
              }
            : { status: {} },
        );
      }
    },
  );

  it('serves Advanced StatefulSet at v1alpha1 and v1beta1 (storage), converted by the webhook, as upstream', () => {
    const crd = parse(renderCrdFiles().get('deploy/crds/apps.kruise.io_statefulsets.yaml')!);
    expect(crd.metadata.name).toBe('statefulsets.apps.kruise.io');
    expect(crd.spec.names).toEqual({
      kind: 'StatefulSet',
      listKind: 'StatefulSetList',
      plural: 'statefulsets',
      singular: 'statefulset',
      shortNames: ['sts', 'asts'],
    });
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.versions.map((v: any) => [v.name, v.served, v.storage])).toEqual([
      ['v1alpha1', true, false],
      ['v1beta1', true, true],
    ]);
    expect(crd.spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: {
        clientConfig: {
          service: { namespace: 'kruise-system', name: 'kruise-webhook-service', path: '/convert' },
        },
        conversionReviewVersions: ['v1', 'v1beta1'],
      },
    });
    for (const version of crd.spec.versions) {
      expect(
        version.additionalPrinterColumns.map(
          (c: any) => `${c.name}=${c.jsonPath}${c.priority ? ' wide' : ''}`,
        ),
      ).toEqual([
        'DESIRED=.spec.replicas',
        'CURRENT=.status.replicas',
        'UPDATED=.status.updatedReplicas',
        'READY=.status.readyReplicas',
        'AGE=.metadata.creationTimestamp',
        'CONTAINERS=.spec.template.spec.containers[*].name wide',
        'IMAGES=.spec.template.spec.containers[*].image wide',
      ]);
      const schema = version.schema.openAPIV3Schema;
      expect(schema.properties.spec.required.sort()).toEqual(['selector', 'template']);
      expect(schema.properties.status.required.sort()).toEqual([
        'availableReplicas',
        'currentReplicas',
        'readyReplicas',
        'replicas',
        'updatedReplicas',
      ]);
    }
    const [alpha, beta] = crd.spec.versions.map((v: any) => v.schema.openAPIV3Schema.properties);
    const betaOnly = Object.keys(beta.spec.properties).filter((k) => !(k in alpha.spec.properties));
    expect(betaOnly.sort()).toEqual([
      'lifecycle',
      'ordinals',
      'persistentVolumeClaimRetentionPolicy',
      'reserveOrdinals',
      'scaleStrategy',
      'volumeClaimUpdateStrategy',
    ]);
    expect(
      Object.keys(beta.status.properties)
        .filter((k) => !(k in alpha.status.properties))
        .sort(),
    ).toEqual(['updatedAvailableReplicas', 'updatedReadyReplicas', 'volumeClaims']);
    expect(beta.spec.properties.reserveOrdinals.items['x-kubernetes-int-or-string']).toBe(true);
    expect(beta.spec.properties.ordinals.required).toBeUndefined();
    expect(beta.status.properties.volumeClaims.items.required.sort()).toEqual([
      'compatibleReadyReplicas',
      'compatibleReplicas',
      'volumeClaimName',
    ]);
  });

  it('serves BroadcastJob at v1alpha1 and v1beta1 (storage) with the same schema and columns, as upstream', () => {
    const crd = parse(renderCrdFiles().get('deploy/crds/apps.kruise.io_broadcastjobs.yaml')!);
    expect(crd.spec.names).toEqual({
      kind: 'BroadcastJob',
      listKind: 'BroadcastJobList',
      plural: 'broadcastjobs',
      singular: 'broadcastjob',
      shortNames: ['bcj'],
    });
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.versions.map((v: any) => [v.name, v.served, v.storage])).toEqual([
      ['v1alpha1', true, false],
      ['v1beta1', true, true],
    ]);
    expect(crd.spec.conversion.strategy).toBe('Webhook');
    const [alpha, beta] = crd.spec.versions;
    expect(alpha.schema).toEqual(beta.schema);
    for (const version of crd.spec.versions) {
      expect(version.additionalPrinterColumns.map((c: any) => `${c.name}=${c.jsonPath}`)).toEqual([
        'Desired=.status.desired',
        'Active=.status.active',
        'Succeeded=.status.succeeded',
        'Failed=.status.failed',
        'AGE=.metadata.creationTimestamp',
      ]);
    }
    const spec = beta.schema.openAPIV3Schema.properties.spec;
    expect(spec.required).toEqual(['template']);
    expect(spec.properties.parallelism['x-kubernetes-int-or-string']).toBe(true);
    expect(beta.schema.openAPIV3Schema.properties.status.required).toBeUndefined();
    expect(beta.schema.openAPIV3Schema.properties.status.properties.conditions.items.required.sort()).toEqual(
      ['status', 'type'],
    );
  });

  it('serves AdvancedCronJob at v1alpha1 and v1beta1 (storage), the ImageListPullJob template at v1beta1 only', () => {
    const crd = parse(renderCrdFiles().get('deploy/crds/apps.kruise.io_advancedcronjobs.yaml')!);
    expect(crd.spec.names.shortNames).toEqual(['acj']);
    expect(crd.spec.versions.map((v: any) => [v.name, v.served, v.storage, v.subresources])).toEqual([
      ['v1alpha1', true, false, { status: {} }],
      ['v1beta1', true, true, { status: {} }],
    ]);
    expect(crd.spec.conversion.strategy).toBe('Webhook');
    for (const version of crd.spec.versions) {
      expect(version.additionalPrinterColumns.map((c: any) => `${c.name}=${c.type}=${c.jsonPath}`)).toEqual([
        'Schedule=string=.spec.schedule',
        'Type=string=.status.type',
        'LastScheduleTime=date=.status.lastScheduleTime',
        'AGE=date=.metadata.creationTimestamp',
      ]);
    }
    const [alpha, beta] = crd.spec.versions.map((v: any) => v.schema.openAPIV3Schema.properties.spec);
    expect(beta.required).toEqual(['schedule', 'template']);
    expect(beta.properties.concurrencyPolicy.enum).toEqual(['Allow', 'Forbid', 'Replace']);
    expect(Object.keys(beta.properties.template.properties)).toEqual([
      'jobTemplate',
      'broadcastJobTemplate',
      'imageListPullJobTemplate',
    ]);
    expect(Object.keys(alpha.properties.template.properties)).toEqual([
      'jobTemplate',
      'broadcastJobTemplate',
    ]);
    expect(beta.properties.template.properties.jobTemplate['x-kubernetes-preserve-unknown-fields']).toBe(
      true,
    );
  });

  it('gives a conversion webhook to multi-version kinds only', () => {
    for (const resource of KRUISE_RESOURCES) {
      const crd = buildCustomResourceDefinition(resource) as any;
      expect('conversion' in crd.spec, resource.kind).toBe(Boolean(resource.servedVersions?.length));
      expect(crd.spec.versions.filter((v: any) => v.storage).map((v: any) => v.name)).toEqual([
        resource.version,
      ]);
    }
  });

  it('declares upstream names, scope, short names and columns', () => {
    const byKind = Object.fromEntries(
      [...renderCrdFiles().values()].map((text) => {
        const crd = parse(text);
        return [crd.spec.names.kind, crd];
      }),
    );
    expect(byKind.NodeImage.spec.scope).toBe('Cluster');
    expect(byKind.ImagePullJob.spec.scope).toBe('Namespaced');
    expect(byKind.ContainerRecreateRequest.spec.names.shortNames).toEqual(['crr']);
    const columns = (kind: string) =>
      byKind[kind].spec.versions[0].additionalPrinterColumns.map((c: any) => `${c.name}=${c.jsonPath}`);
    expect(columns('NodeImage')).toEqual([
      'DESIRED=.status.desired',
      'PULLING=.status.pulling',
      'SUCCEED=.status.succeeded',
      'FAILED=.status.failed',
      'AGE=.metadata.creationTimestamp',
    ]);
    expect(columns('ImagePullJob')).toContain('MESSAGE=.status.message');
    expect(byKind.CloneSet.spec.names.shortNames).toEqual(['clone']);
    expect(columns('CloneSet')).toEqual([
      'DESIRED=.spec.replicas',
      'UPDATED=.status.updatedReplicas',
      'UPDATED_READY=.status.updatedReadyReplicas',
      'UPDATED_AVAILABLE=.status.updatedAvailableReplicas',
      'READY=.status.readyReplicas',
      'TOTAL=.status.replicas',
      'AGE=.metadata.creationTimestamp',
      'CONTAINERS=.spec.template.spec.containers[*].name',
      'IMAGES=.spec.template.spec.containers[*].image',
      'SELECTOR=.status.labelSelector',
    ]);
    expect(
      byKind.CloneSet.spec.versions[0].additionalPrinterColumns
        .filter((c: any) => c.priority === 1)
        .map((c: any) => c.name),
    ).toEqual(['CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(columns('ImageListPullJob')).toEqual([
      'TOTAL=.status.desired',
      'SUCCEEDED=.status.succeeded',
      'COMPLETED=.status.completed',
      'AGE=.metadata.creationTimestamp',
    ]);
    expect(columns('ContainerRecreateRequest')).toContain(
      'NODE=.metadata.labels.crr\\.apps\\.kruise\\.io/node-name',
    );
  });

  it('requires the fields upstream requires', () => {
    const schemaOf = (kind: string) =>
      (buildCustomResourceDefinition(KRUISE_RESOURCES.find((r) => r.kind === kind)!) as any).spec.versions[0]
        .schema.openAPIV3Schema;
    const ipj = schemaOf('ImagePullJob');
    expect(ipj.properties.spec.required.sort()).toEqual(['completionPolicy', 'image']);
    expect(ipj.properties.status.required).toEqual(['desired']);
    expect(ipj.properties.spec.properties.parallelism['x-kubernetes-int-or-string']).toBe(true);
    const ilpj = schemaOf('ImageListPullJob');
    expect(ilpj.properties.spec.required.sort()).toEqual(['completionPolicy', 'images']);
    const ni = schemaOf('NodeImage');
    const image = ni.properties.spec.properties.images.additionalProperties;
    expect(image.required).toEqual(['tags']);
    expect(image.properties.tags.items.required).toEqual(['tag']);
    expect(
      ni.properties.status.properties.imageStatuses.additionalProperties.properties.tags.items.required.sort(),
    ).toEqual(['phase', 'tag']);
    const crr = schemaOf('ContainerRecreateRequest');
    expect(crr.properties.spec.required.sort()).toEqual(['containers', 'podName']);
    expect(crr.properties.spec.properties.containers.items.required).toEqual(['name']);
    expect(crr.properties.spec.properties.containers.items.properties.statusContext.required.sort()).toEqual([
      'containerID',
      'restartCount',
    ]);
    expect(crr.properties.status.required).toEqual(['phase']);
    const cs = schemaOf('CloneSet');
    expect(cs.properties.spec.required.sort()).toEqual(['selector', 'template']);
    expect(cs.properties.spec.properties.template['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(cs.properties.spec.properties.volumeClaimTemplates['x-kubernetes-preserve-unknown-fields']).toBe(
      true,
    );
    expect(cs.properties.status.required.sort()).toEqual([
      'availableReplicas',
      'readyReplicas',
      'replicas',
      'updatedReadyReplicas',
      'updatedReplicas',
    ]);
    const update = cs.properties.spec.properties.updateStrategy.properties;
    for (const f of ['partition', 'maxUnavailable', 'maxSurge'])
      expect(update[f]['x-kubernetes-int-or-string']).toBe(true);
    expect(update.priorityStrategy.properties.weightPriority.items.required.sort()).toEqual([
      'matchSelector',
      'weight',
    ]);
    expect(update.scatterStrategy.items.required.sort()).toEqual(['key', 'value']);
    expect(cs.properties.status.properties.conditions.items.required.sort()).toEqual(['status', 'type']);
  });
});
