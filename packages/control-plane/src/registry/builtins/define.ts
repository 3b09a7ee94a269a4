import { AGE_COLUMN } from '../columns.ts';
import type { ResourceType } from '../types.ts';

/** Verbs of an ordinary stored resource. */
export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** Fills the usual values of a built-in resource type. */
export function builtin(
  spec: Pick<ResourceType, 'group' | 'version' | 'kind' | 'plural' | 'namespaced'> & Partial<ResourceType>,
): ResourceType {
  return {
    listKind: `${spec.kind}List`,
    singular: spec.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    statusSubresource: false,
    subresources: [],
    tracksGeneration: false,
    columns: [AGE_COLUMN],
    ...spec,
  };
}
