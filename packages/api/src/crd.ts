import type { TSchema } from '@sinclair/typebox';
import type { KruiseResource } from './resources.ts';

/** A CustomResourceDefinition as plain JSON (apiextensions.k8s.io/v1). */
export type CustomResourceDefinition = Record<string, unknown> & {
  metadata: { name: string; annotations?: Record<string, string> };
};

/** Turns a TypeBox schema into plain OpenAPI v3 JSON: symbols and TypeBox-only keys are dropped. */
export function toOpenAPISchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === '$id' ? undefined : value)));
}

/** The full CustomResourceDefinition for one Kruise kind. */
export function buildCustomResourceDefinition(resource: KruiseResource): CustomResourceDefinition {
  const openAPIV3Schema = toOpenAPISchema(resource.schema);
  openAPIV3Schema.description = `${resource.kind} is the Schema for the ${resource.plural} API`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${resource.plural}.${resource.group}` },
    spec: {
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
      versions: [
        {
          name: resource.version,
          served: true,
          storage: true,
          additionalPrinterColumns: resource.printerColumns,
          schema: { openAPIV3Schema },
          subresources: { ...(resource.scale ? { scale: resource.scale } : {}), status: {} },
        },
      ],
    },
  };
}
