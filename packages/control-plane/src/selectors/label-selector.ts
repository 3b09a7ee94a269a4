import {
  type LabelRequirement,
  LabelSelectorSyntaxError,
  parseLabelRequirements,
} from '@kruise/kube-compat/label-selector-parse';
import { badRequest } from '../errors.ts';

export type { LabelRequirement };

/** A parsed label selector: every requirement must hold. */
export type LabelSelector = LabelRequirement[];

/**
 * Parses a label selector string (`a=b,c!=d,e in (f,g),h notin (i),j,!k`).
 * @throws ApiError 400 with a message naming the bad term.
 */
export function parseLabelSelector(text: string | undefined | null): LabelSelector {
  try {
    return parseLabelRequirements(text);
  } catch (err) {
    if (err instanceof LabelSelectorSyntaxError) throw badRequest(err.message);
    throw err;
  }
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
