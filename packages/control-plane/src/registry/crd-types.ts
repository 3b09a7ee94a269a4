import { ALL_VERBS } from './builtins/define.ts';
import { AGE_COLUMN } from './columns.ts';
import { readJsonPath } from './json-path.ts';
import { printerColumns } from './printer-columns.ts';
import type { KubeObject, ResourceType, TableColumn } from './types.ts';

/** The resource types a CRD serves: one per served version. */
export function resourceTypesOfCrd(crd: KubeObject): ResourceType[] {
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const storageVersion = (spec.versions ?? []).find((v: any) => v.storage)?.name;
  return (
    (spec.versions ?? [])
      .filter((v: any) => v.served !== false)
      // The storage version last: the registry's type of a resource is the last one added.
      .sort((a: any, b: any) => Number(Boolean(a.storage)) - Number(Boolean(b.storage)))
      .map((v: any): ResourceType => {
        const subresources = v.subresources ?? {};
        const columns: TableColumn[] = v.additionalPrinterColumns?.length
          ? printerColumns(v.additionalPrinterColumns)
          : [AGE_COLUMN];
        const selectable: string[] = (v.selectableFields ?? []).map((f: any) =>
          String(f.jsonPath).replace(/^\./, ''),
        );
        return {
          group: spec.group,
          version: v.name,
          kind: names.kind,
          listKind: names.listKind ?? `${names.kind}List`,
          plural: names.plural,
          singular: names.singular ?? String(names.kind).toLowerCase(),
          namespaced: spec.scope !== 'Cluster',
          shortNames: names.shortNames ?? [],
          categories: names.categories ?? [],
          verbs: ALL_VERBS,
          statusSubresource: Boolean(subresources.status),
          subresources: subresources.scale ? ['scale'] : [],
          tracksGeneration: true,
          columns,
          schema: v.schema?.openAPIV3Schema ?? {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
          },
          crdName: crd.metadata?.name,
          storageVersion,
          conversion: spec.conversion ?? { strategy: 'None' },
          returnsDeletedObject: true,
          ...(subresources.scale ? { scale: subresources.scale } : {}),
          ...(selectable.length
            ? {
                selectableFields: (obj: KubeObject) =>
                  Object.fromEntries(selectable.map((f) => [f, String(readJsonPath(obj, `.${f}`) ?? '')])),
              }
            : {}),
        };
      })
  );
}
