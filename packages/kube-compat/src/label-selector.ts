/** A metav1.LabelSelector, as far as matching and printing read it. */
export interface LabelSelectorFields {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** Whether a selector has no terms (`{}`: as a selector, everything; as a workload's, refused). */
export function labelSelectorIsEmpty(selector: LabelSelectorFields | undefined | null): boolean {
  return !Object.keys(selector?.matchLabels ?? {}).length && !selector?.matchExpressions?.length;
}

/** Whether labels satisfy a metav1.LabelSelector (`matchLabels` and `matchExpressions`). */
export function labelSelectorMatches(
  selector: LabelSelectorFields | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (!selector) return true;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(l, e.key);
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(l[e.key]!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(l[e.key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/**
 * A selector as apimachinery prints it (`labels.Selector.String()`, what `status.labelSelector`
 * holds for the scale subresource): requirements sorted by key, `k=v`, `k in (a,b)`,
 * `k notin (a,b)`, `k`, `!k`.
 */
export function labelSelectorString(selector: LabelSelectorFields | undefined): string {
  const reqs: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(selector?.matchLabels ?? {})) reqs.push({ key: k, text: `${k}=${v}` });
  for (const e of selector?.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    const text =
      e.operator === 'In'
        ? `${e.key} in (${values})`
        : e.operator === 'NotIn'
          ? `${e.key} notin (${values})`
          : e.operator === 'Exists'
            ? e.key
            : `!${e.key}`;
    reqs.push({ key: e.key, text });
  }
  return reqs
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => r.text)
    .join(',');
}
