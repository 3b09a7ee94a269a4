import type { IntOrString } from '@kruise/kube-compat';
import { type FieldError, goIntOrString, invalid, nonNegative } from './field-errors.ts';

/**
 * Kubernetes apps validation's checks of an IntOrString that may be a percentage, which every
 * Kruise webhook with a maxUnavailable, a partition or a budget applies in the same words.
 */

/** Go's validation.IsValidPercent: digits then `%`. */
export const PERCENT = /^[0-9]+%$/;

/** IsValidPercent's message. */
export const PERCENT_MSG =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** apps validation's ValidatePositiveIntOrPercent (which, despite its name, allows 0). */
export function positiveIntOrPercentErrors(v: IntOrString, field: string): FieldError[] {
  if (typeof v === 'number') return nonNegative(field, v);
  return PERCENT.test(v) ? [] : [invalid(field, goIntOrString(v), PERCENT_MSG)];
}

/** apps validation's IsNotMoreThan100Percent. */
export function notMoreThan100PercentErrors(v: IntOrString, field: string): FieldError[] {
  if (typeof v !== 'string' || !PERCENT.test(v) || Number(v.slice(0, -1)) <= 100) return [];
  return [invalid(field, goIntOrString(v), 'must not be greater than 100%')];
}
