import type { TSchema } from '@sinclair/typebox';
import { CONVERSION_WEBHOOK } from './conversion-webhook.ts';
import type { KruiseResource } from './resources.ts';

/** A CustomResourceDefinition as plain JSON (apiextensions.k8s.io/v1). */
export type CustomResourceDefinition = Record<string, unknown> & {
  metadata: { name: string; annotations?: Record<string, string> };
};

/** Turns a TypeBox schema into plain OpenAPI v3 JSON: symbols and TypeBox-only keys are dropped. */
export function toOpenAPISchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === '$id' ? undefined : value)));
}

/** One entry of `spec.versions`: the schema, columns and subresources a version is served with. */
function crdVersion(resource: KruiseResource, name: string, schema: TSchema, storage: boolean) {
  const openAPIV3Schema = toOpenAPISchema(schema);
  openAPIV3Schema.description = `${resource.kind} is the Schema for the ${resource.plural} API`;
  return {
    name,
    served: true,
    storage,
    additionalPrinterColumns: resource.printerColumns,
    schema: { openAPIV3Schema },
    subresources: { ...(resource.scale ? { scale: resource.scale } : {}), status: {} },
  };
}

/**
 * The full CustomResourceDefinition for one Kruise kind: one version, or several (sorted by name,
 * as controller-gen lists them) converted by kruise-manager's webhook.
 */
export function buildCustomResourceDefinition(resource: KruiseResource): CustomResourceDefinition {
  const others = resource.servedVersions ?? [];
  const versions = [
    crdVersion(resource, resource.version, resource.schema, true),
    ...others.map((v) => crdVersion(resource, v.version, v.schema, false)),
  ].sort((a, b) => (a.name < b.name ? -1 : 1));
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${resource.plural}.${resource.group}` },
    spec: {
      ...(others.length
        ? {
            conversion: {
              strategy: 'Webhook',
              webhook: {
                clientConfig: { service: { ...CONVERSION_WEBHOOK } },
                conversionReviewVersions: ['v1', 'v1beta1'],
              },
            },
          }
        : {}),
      group: resource.group,
      names: {
        kind: resource.kind,
        listKind: resource.listKind,
        plural: resource.plural,
        singular: resource.singular,
        ...(resource.shortNames.length ? { shortNames: resource.shortNames } : {}),
        ...(resource.categories.length ? { categories: resource.categories } : {}),
      },
      scope: resource.scope,
      versions,
    },
  };
}
