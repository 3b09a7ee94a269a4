import type { LabelSelectorFields } from '@kruise/kube-compat';
import { type FieldError, goLabelSelector, invalid } from '../field-errors.ts';
import { labelSelectorError, labelSelectorFieldErrors } from '../validation.ts';

/**
 * Upstream's validateSelector for a SidecarSet's selectors: apimachinery's label-selector rules,
 * no empty selector, and one LabelSelectorAsSelector can read (its failure at `<field>.selector`).
 */
export function sidecarSetSelectorErrors(selector: LabelSelectorFields, field: string): FieldError[] {
  const out = labelSelectorFieldErrors(selector, field);
  if (Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions?.length ?? 0) === 0)
    out.push(invalid(field, goLabelSelector(selector), 'empty selector is not valid for sidecarset.'));
  if (labelSelectorError(selector)) out.push(invalid(`${field}.selector`, goLabelSelector(selector), ''));
  return out;
}

type Expression = NonNullable<LabelSelectorFields['matchExpressions']>[number];

/** label → values a selector allows (`ALL` for Exists), as upstream's isDisjoint reads it. */
function allowedValues(selector: LabelSelectorFields): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) m.set(k, [v]);
  for (const e of selector.matchExpressions ?? [])
    if (e.operator === 'In') m.set(e.key, [...(m.get(e.key) ?? []), ...(e.values ?? [])]);
    else if (e.operator === 'Exists') m.set(e.key, ['ALL']);
  return m;
}

function expressionDisjoint(e: Expression, values: string[] | undefined): boolean {
  switch (e.operator) {
    case 'In':
      return !!values && !values.includes('ALL') && !(e.values ?? []).some((v) => values.includes(v));
    case 'NotIn':
      return !!values && values.every((v) => (e.values ?? []).includes(v));
    case 'Exists':
      return !values;
    case 'DoesNotExist':
      return !!values;
    default:
      return false;
  }
}

function disjoint(a: LabelSelectorFields, b: LabelSelectorFields): boolean {
  const allowed = allowedValues(a);
  for (const [k, v] of Object.entries(b.matchLabels ?? {})) {
    const values = allowed.get(k);
    if (values && !values.includes('ALL') && !values.includes(v)) return true;
  }
  return (b.matchExpressions ?? []).some((e) => expressionDisjoint(e, allowed.get(e.key)));
}

/**
 * Upstream's IsSelectorOverlapping: two selectors may select the same labels unless one of them
 * rules out what the other requires on a shared key (`a=b` and `a=c`, `a in [b]` and `a notin [b]`,
 * `a exists` and `a doesnotexist` …); selectors on different keys overlap.
 */
export function selectorsOverlap(a: LabelSelectorFields, b: LabelSelectorFields): boolean {
  return !(disjoint(a, b) || disjoint(b, a));
}
