import type { KubeObject, ResourceType } from '../registry/types.ts';

/** Whether the Accept header asks for a `meta.k8s.io/v1` Table. */
export function wantsTable(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const p = part.replace(/\s/g, '');
    return (
      p.includes('as=Table') && p.includes('g=meta.k8s.io') && p.includes('v=v1') && !p.includes('v=v1beta1')
    );
  });
}

/** Converts objects to the Table kubectl prints. `includeObject` follows `?includeObject=`. */
export function toTable(
  type: ResourceType,
  objects: KubeObject[],
  listMeta: Record<string, unknown>,
  includeObject: string | null,
) {
  const now = Date.now();
  const columns = type.columns ?? [];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: [
      {
        name: 'Name',
        type: 'string',
        format: 'name',
        description: 'Name must be unique within a namespace.',
        priority: 0,
      },
      ...columns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description ?? '',
        priority: c.priority ?? 0,
      })),
    ],
    rows: objects.map((obj) => ({
      cells: [obj.metadata?.name, ...columns.map((c) => c.cell(obj, now))],
      object:
        includeObject === 'None'
          ? undefined
          : includeObject === 'Object'
            ? obj
            : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata },
    })),
  };
}
