import type { LabelSelectorFields } from './label-selector.ts';

/** One requirement of a label selector string, with apimachinery's operator names. */
export interface LabelRequirement {
  key: string;
  operator: 'in' | 'notin' | 'exists' | '!' | '=' | '!=' | 'gt' | 'lt';
  values: string[];
}

/** A label selector string that does not parse; the message is apimachinery's. */
export class LabelSelectorSyntaxError extends Error {
  override readonly name = 'LabelSelectorSyntaxError';
}

const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Splits on commas that are not inside parentheses. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms.map((t) => t.trim()).filter((t) => t.length > 0);
}

function checkKey(key: string, whole: string): void {
  if (!KEY.test(key))
    throw new LabelSelectorSyntaxError(
      `unable to parse requirement: invalid label key "${key}" in "${whole}"`,
    );
}

function checkValue(value: string): void {
  if (value.length > 63 || !VALUE.test(value)) {
    throw new LabelSelectorSyntaxError(
      `unable to parse requirement: values[0][${value}]: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
}

/** One term: `k in (a,b)`, `k notin (a)`, `k=v`, `k==v`, `k!=v`, `k>1`, `k<1`, `!k`, `k`. */
function parseTerm(term: string, whole: string): LabelRequirement {
  let m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(term);
  if (m) {
    const values = m[3]!
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    checkKey(m[1]!, whole);
    values.forEach(checkValue);
    return { key: m[1]!, operator: m[2] as 'in' | 'notin', values };
  }
  m = /^([^=!<>\s]+)\s*(==|=|!=|<|>)\s*(\S*)$/.exec(term);
  if (m) {
    checkKey(m[1]!, whole);
    const op = m[2]!;
    if (op === '<' || op === '>') {
      if (!/^-?\d+$/.test(m[3]!))
        throw new LabelSelectorSyntaxError(
          `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`,
        );
      return { key: m[1]!, operator: op === '<' ? 'lt' : 'gt', values: [m[3]!] };
    }
    checkValue(m[3]!);
    return { key: m[1]!, operator: op === '!=' ? '!=' : '=', values: [m[3]!] };
  }
  m = /^!\s*(\S+)$/.exec(term);
  if (m) {
    checkKey(m[1]!, whole);
    return { key: m[1]!, operator: '!', values: [] };
  }
  if (/^\S+$/.test(term)) {
    checkKey(term, whole);
    return { key: term, operator: 'exists', values: [] };
  }
  throw new LabelSelectorSyntaxError(
    `unable to parse requirement: found '${term}', expected: in, notin, =, ==, !=, gt, lt`,
  );
}

/**
 * The requirements of a label selector string (`a=b,c!=d,e in (f,g),h notin (i),j,!k`), as
 * apimachinery's `labels.ParseToRequirements`; none for an empty string.
 * @throws LabelSelectorSyntaxError naming the bad term.
 */
export function parseLabelRequirements(text: string | undefined | null): LabelRequirement[] {
  if (!text) return [];
  return splitTerms(text).map((term) => parseTerm(term, text));
}

/** Sorted, without repeats (apimachinery keeps a requirement's values as a string set). */
const valueSet = (values: string[]) => [...new Set(values)].sort();

/**
 * A metav1.LabelSelector from a selector string (apimachinery's `metav1.ParseToLabelSelector`, how
 * a scale subresource's `status.selector` is read back): `k=v` and `k==v` into matchLabels, the
 * rest into matchExpressions (`k!=v` as NotIn). An empty string gives an empty selector (matchLabels
 * `{}`, matchExpressions `[]`), which selects everything.
 * @throws LabelSelectorSyntaxError when the string does not parse or uses `<` or `>`.
 */
export function parseToLabelSelector(text: string): Required<LabelSelectorFields> {
  let requirements: LabelRequirement[];
  try {
    requirements = parseLabelRequirements(text);
  } catch (err) {
    throw new LabelSelectorSyntaxError(
      `couldn't parse the selector string "${text}": ${(err as Error).message}`,
    );
  }
  const selector: Required<LabelSelectorFields> = { matchLabels: {}, matchExpressions: [] };
  for (const r of requirements) {
    switch (r.operator) {
      case '=':
        selector.matchLabels[r.key] = r.values[0]!;
        break;
      case 'in':
        selector.matchExpressions.push({ key: r.key, operator: 'In', values: valueSet(r.values) });
        break;
      case 'notin':
      case '!=':
        selector.matchExpressions.push({ key: r.key, operator: 'NotIn', values: valueSet(r.values) });
        break;
      case 'exists':
        selector.matchExpressions.push({ key: r.key, operator: 'Exists' });
        break;
      case '!':
        selector.matchExpressions.push({ key: r.key, operator: 'DoesNotExist' });
        break;
      default:
        throw new LabelSelectorSyntaxError(`"${r.operator}" isn't supported in label selectors`);
    }
  }
  return selector;
}
