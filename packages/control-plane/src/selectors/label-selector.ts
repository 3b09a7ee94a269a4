import { badRequest } from '../errors.ts';

/** One requirement of a label selector. */
export interface LabelRequirement {
  key: string;
  operator: 'in' | 'notin' | 'exists' | '!' | '=' | '!=' | 'gt' | 'lt';
  values: string[];
}

/** A parsed label selector: every requirement must hold. */
export type LabelSelector = LabelRequirement[];

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
    throw badRequest(`unable to parse requirement: invalid label key "${key}" in "${whole}"`);
}

function checkValue(value: string): void {
  if (value.length > 63 || !VALUE.test(value)) {
    throw badRequest(
      `unable to parse requirement: values[0][${value}]: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
}

/**
 * Parses a label selector string (`a=b,c!=d,e in (f,g),h notin (i),j,!k`).
 * @throws ApiError 400 with a message naming the bad term.
 */
export function parseLabelSelector(text: string | undefined | null): LabelSelector {
  if (!text) return [];
  const requirements: LabelSelector = [];
  for (const term of splitTerms(text)) {
    let m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(term);
    if (m) {
      const values = m[3]!
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
      checkKey(m[1]!, text);
      values.forEach(checkValue);
      requirements.push({ key: m[1]!, operator: m[2] as 'in' | 'notin', values });
      continue;
    }
    m = /^([^=!<>\s]+)\s*(==|=|!=|<|>)\s*(\S*)$/.exec(term);
    if (m) {
      checkKey(m[1]!, text);
      const op = m[2]!;
      if (op === '<' || op === '>') {
        if (!/^-?\d+$/.test(m[3]!))
          throw badRequest(
            `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`,
          );
        requirements.push({ key: m[1]!, operator: op === '<' ? 'lt' : 'gt', values: [m[3]!] });
        continue;
      }
      checkValue(m[3]!);
      requirements.push({ key: m[1]!, operator: op === '!=' ? '!=' : '=', values: [m[3]!] });
      continue;
    }
    m = /^!\s*(\S+)$/.exec(term);
    if (m) {
      checkKey(m[1]!, text);
      requirements.push({ key: m[1]!, operator: '!', values: [] });
      continue;
    }
    if (/^\S+$/.test(term)) {
      checkKey(term, text);
      requirements.push({ key: term, operator: 'exists', values: [] });
      continue;
    }
    throw badRequest(`unable to parse requirement: found '${term}', expected: in, notin, =, ==, !=, gt, lt`);
  }
  return requirements;
}

/** Whether labels satisfy every requirement. */
export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  for (const r of selector) {
    const has = labels !== undefined && Object.hasOwn(labels, r.key);
    const value = has ? labels![r.key] : undefined;
    switch (r.operator) {
      case '=':
      case 'in':
        if (!has || !r.values.includes(value!)) return false;
        break;
      case '!=':
      case 'notin':
        if (has && r.values.includes(value!)) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case '!':
        if (has) return false;
        break;
      case 'gt':
      case 'lt': {
        if (!has || !/^-?\d+$/.test(value!)) return false;
        const a = Number(value);
        const b = Number(r.values[0]);
        if (r.operator === 'gt' ? !(a > b) : !(a < b)) return false;
        break;
      }
    }
  }
  return true;
}
