import type { KubeObject, ResourceType } from '../registry/types.ts';
import { type LabelRequirement, matchesLabels } from '../selectors/label-selector.ts';

/** Converts a metav1.LabelSelector object to requirements. */
export function labelSelectorRequirements(selector: any): LabelRequirement[] {
  const out: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {}))
    out.push({ key, operator: '=', values: [String(value)] });
  for (const e of selector?.matchExpressions ?? []) {
    const op = String(e.operator);
    const operator = op === 'In' ? 'in' : op === 'NotIn' ? 'notin' : op === 'Exists' ? 'exists' : '!';
    out.push({ key: e.key, operator, values: e.values ?? [] });
  }
  return out;
}

/** Whether a metav1.LabelSelector matches the labels. */
export function selectorMatches(selector: any, labels: Record<string, string> | undefined): boolean {
  if (!selector) return true;
  return matchesLabels(labelSelectorRequirements(selector), labels);
}

function listHas(list: unknown, value: string): boolean {
  return Array.isArray(list) && (list.includes('*') || list.includes(value));
}

function resourceListHas(resources: unknown, resource: string, subresource: string): boolean {
  if (!Array.isArray(resources)) return false;
  const full = subresource ? `${resource}/${subresource}` : resource;
  return resources.some(
    (r) =>
      r === '*/*' ||
      r === full ||
      (!subresource && r === '*') ||
      (subresource && (r === `${resource}/*` || r === `*/${subresource}`)),
  );
}

/** Whether one webhook's rules cover the request. */
export function rulesMatch(
  webhook: any,
  type: ResourceType,
  operation: string,
  subresource: string,
): boolean {
  return (webhook.rules ?? []).some((rule: any) => {
    if (!listHas(rule.operations, operation)) return false;
    if (!listHas(rule.apiGroups, type.group)) return false;
    if (!listHas(rule.apiVersions, type.version)) return false;
    if (!resourceListHas(rule.resources, type.plural, subresource)) return false;
    const scope = rule.scope ?? '*';
    if (scope === 'Cluster' && type.namespaced) return false;
    if (scope === 'Namespaced' && !type.namespaced) return false;
    return true;
  });
}

/** Whether the namespace and object selectors of a webhook cover the request. */
export function selectorsMatch(
  webhook: any,
  type: ResourceType,
  namespaceLabels: Record<string, string> | undefined,
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
): boolean {
  if (webhook.namespaceSelector && (type.namespaced || type.plural === 'namespaces')) {
    const labels = type.plural === 'namespaces' ? (object ?? oldObject)?.metadata?.labels : namespaceLabels;
    if (!selectorMatches(webhook.namespaceSelector, labels ?? {})) return false;
  }
  if (webhook.objectSelector) {
    const a = object && selectorMatches(webhook.objectSelector, object.metadata?.labels ?? {});
    const b = oldObject && selectorMatches(webhook.objectSelector, oldObject.metadata?.labels ?? {});
    if (!a && !b) return false;
  }
  return true;
}

/** A metav1.LabelSelector written as a selector string (`a=b,c in (d)`), as Scale.status.selector is. */
export function selectorMatchesToString(selector: any): string {
  return labelSelectorRequirements(selector)
    .map((r) => {
      switch (r.operator) {
        case '=':
          return `${r.key}=${r.values[0]}`;
        case 'in':
          return `${r.key} in (${r.values.join(',')})`;
        case 'notin':
          return `${r.key} notin (${r.values.join(',')})`;
        case 'exists':
          return r.key;
        default:
          return `!${r.key}`;
      }
    })
    .join(',');
}
