import type { LabelSelectorFields } from '@kruise/kube-compat';

/**
 * Upstream's two tests of whether label selectors overlap (pkg/util/selector.go): the strict one
 * SidecarSets use (they overlap unless a shared key rules the other out) and the loose one
 * PodUnavailableBudgets use (they overlap only when they constrain the same keys compatibly).
 */

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

/** label → requirement, a matchLabel read as `In [value]` and winning over an expression on its key. */
function requirementsByKey(selector: LabelSelectorFields): Map<string, Expression> {
  const m = new Map<string, Expression>();
  for (const e of selector.matchExpressions ?? []) m.set(e.key, e);
  for (const [key, value] of Object.entries(selector.matchLabels ?? {}))
    m.set(key, { key, operator: 'In', values: [value] });
  return m;
}

const sharesAny = (a: string[], b: string[]) => b.some((v) => a.includes(v));
const containsAll = (a: string[], b: string[]) => b.every((v) => a.includes(v));

/** Upstream's isMatchExpOverlap: whether `b` leaves some value `a` allows (read from `a`'s side). */
function requirementsOverlap(a: Expression, b: Expression): boolean {
  const av = a.values ?? [];
  const bv = b.values ?? [];
  switch (a.operator) {
    case 'In':
      return (
        b.operator === 'Exists' ||
        (b.operator === 'In' && sharesAny(bv, av)) ||
        (b.operator === 'NotIn' && !containsAll(bv, av))
      );
    case 'Exists':
      return b.operator === 'In' || b.operator === 'NotIn' || b.operator === 'Exists';
    case 'NotIn':
      return (
        b.operator === 'Exists' ||
        b.operator === 'DoesNotExist' ||
        b.operator === 'NotIn' ||
        (b.operator === 'In' && !containsAll(av, bv))
      );
    case 'DoesNotExist':
      return b.operator === 'DoesNotExist' || b.operator === 'NotIn';
    default:
      return false;
  }
}

/**
 * Upstream's IsSelectorLooseOverlap: both selectors constrain exactly the same keys, and on each
 * key the two requirements leave a common value (`a in [b,c]` and `a exists`, `a notin [b]` and
 * `a doesnotexist` …); selectors on different keys do not overlap, and two empty ones do.
 */
export function selectorsLooselyOverlap(a: LabelSelectorFields, b: LabelSelectorFields): boolean {
  const ra = requirementsByKey(a);
  const rb = requirementsByKey(b);
  const oneWay = (x: Map<string, Expression>, y: Map<string, Expression>) =>
    [...x].every(([key, e]) => {
      const other = y.get(key);
      return other !== undefined && requirementsOverlap(e, other);
    });
  return oneWay(ra, rb) && oneWay(rb, ra);
}
