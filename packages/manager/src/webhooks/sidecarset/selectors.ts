import type { LabelSelectorFields } from '@kruise/kube-compat';
import type { FieldError } from '../field-errors.ts';
import { podSelectorErrors } from '../validation.ts';

/**
 * Upstream's validateSelector for a SidecarSet's selectors: apimachinery's label-selector rules,
 * no empty selector, and one LabelSelectorAsSelector can read (its failure at `<field>.selector`).
 */
export function sidecarSetSelectorErrors(selector: LabelSelectorFields, field: string): FieldError[] {
  return podSelectorErrors(
    selector,
    field,
    'empty selector is not valid for sidecarset.',
    `${field}.selector`,
  );
}
