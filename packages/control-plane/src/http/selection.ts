import { badRequest } from '../errors.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';
import { type FieldRequirement, matchesFields, parseFieldSelector } from '../selectors/field-selector.ts';
import { type LabelSelector, matchesLabels, parseLabelSelector } from '../selectors/label-selector.ts';

/** Field values used by field selectors. */
export function selectableFieldsOf(type: ResourceType, obj: KubeObject): Record<string, string> {
  return {
    'metadata.name': obj.metadata?.name ?? '',
    'metadata.namespace': obj.metadata?.namespace ?? '',
    ...(type.selectableFields?.(obj) ?? {}),
  };
}

/** A list, watch or deletecollection's `labelSelector` and `fieldSelector`. */
export interface Selection {
  labels: LabelSelector;
  fields: FieldRequirement[];
}

/**
 * The selectors of a request's query; a field the resource cannot select on is a 400
 * (`field label not supported: …`), as kube-apiserver answers.
 */
export function selectionOf(type: ResourceType, query: URLSearchParams): Selection {
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'));
  const known = selectableFieldsOf(type, {});
  for (const f of fields) {
    if (!(f.field in known)) throw badRequest(`field label not supported: ${f.field}`);
  }
  return { labels, fields };
}

/** Whether an object matches both selectors. */
export function selects(type: ResourceType, selection: Selection, obj: KubeObject): boolean {
  const { labels, fields } = selection;
  if (labels.length && !matchesLabels(labels, obj.metadata?.labels)) return false;
  if (fields.length && !matchesFields(fields, selectableFieldsOf(type, obj))) return false;
  return true;
}
