import type { UpdatePriorityStrategy } from '@kruise/api';
import { goAtoi, parseImageReference } from '@kruise/kube-compat';
import { type FieldError, forbidden, goLabelSelector, invalid, required } from './field-errors.ts';
import { labelsErrors, labelValueErrors, qualifiedNameErrors } from './pod-template-validation.ts';

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function labelKeyError(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const name = slash === -1 ? key : key.slice(slash + 1);
  const prefix = slash === -1 ? '' : key.slice(0, slash);
  if (prefix && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return `key: Invalid value: "${key}": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`;
  }
  if (!name || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    return `key: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;
  }
  return undefined;
}

/**
 * Checks a metav1.LabelSelector the way `LabelSelectorAsSelector` does; returns the error text
 * (without the caller's prefix) or undefined.
 */
export function labelSelectorError(selector: any): string | undefined {
  if (selector === null || selector === undefined) return undefined;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    const keyErr = labelKeyError(k);
    if (keyErr) return keyErr;
    if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) {
      return `values[0][${k}]: Invalid value: "${String(v)}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;
    }
  }
  for (const expr of selector.matchExpressions ?? []) {
    const keyErr = labelKeyError(String(expr?.key ?? ''));
    if (keyErr) return keyErr;
    const values: unknown[] = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          return "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty";
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          return `values: Invalid value: ${JSON.stringify(values)}: values set must be empty for exists and does not exist`;
        break;
      default:
        return `"${String(expr.operator)}" is not a valid label selector operator`;
    }
  }
  return undefined;
}

/** Upstream's parallelism checks: no percentage, a valid integer, not negative. */
export function parallelismError(parallelism: unknown): string | undefined {
  if (parallelism === undefined || parallelism === null) return undefined;
  if (typeof parallelism === 'string') {
    if (parallelism.endsWith('%')) return 'parallelism does not support percentage value';
    let n: number;
    try {
      n = goAtoi(parallelism);
    } catch (err) {
      return `parallelism must be a valid integer: ${(err as Error).message}`;
    }
    return n < 0 ? 'parallelism must be non-negative' : undefined;
  }
  if (typeof parallelism !== 'number' || !Number.isInteger(parallelism))
    return 'parallelism must be a valid integer';
  return parallelism < 0 ? 'parallelism must be non-negative' : undefined;
}

/** The image's parse error as upstream words it (`invalid image X: …`), or undefined. */
export function imageError(image: string): string | undefined {
  try {
    parseImageReference(image);
    return undefined;
  } catch (err) {
    return `invalid image ${image}: ${(err as Error).message}`;
  }
}

/**
 * apimachinery's ValidateLabelSelector (label values checked too): errors at
 * `<field>.matchLabels` and `<field>.matchExpressions[i].…`.
 */
export function labelSelectorFieldErrors(selector: any, field: string): FieldError[] {
  if (selector === null || selector === undefined) return [];
  const out = labelsErrors(selector.matchLabels ?? undefined, `${field}.matchLabels`);
  for (const [i, expr] of (selector.matchExpressions ?? []).entries()) {
    const at = `${field}.matchExpressions[${i}]`;
    const values: string[] = expr?.values ?? [];
    const operator = expr?.operator ?? '';
    if (operator === 'In' || operator === 'NotIn') {
      if (!values.length)
        out.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length)
        out.push(
          forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
    } else out.push(invalid(`${at}.operator`, operator, 'not a valid selector operator'));
    const key = String(expr?.key ?? '');
    for (const msg of qualifiedNameErrors(key)) out.push(invalid(`${at}.key`, key, msg));
    for (const [j, v] of values.entries())
      for (const msg of labelValueErrors(String(v))) out.push(invalid(`${at}.values[${j}]`, v, msg));
  }
  return out;
}

/**
 * A selector as upstream's webhooks check the one that picks their pods: ValidateLabelSelector,
 * then `emptyDetail` for a selector with no terms, then an Invalid value with no detail at
 * `asSelectorField` when LabelSelectorAsSelector cannot read it.
 */
export function podSelectorErrors(
  selector: any,
  field: string,
  emptyDetail: string,
  asSelectorField = field,
): FieldError[] {
  const out = labelSelectorFieldErrors(selector, field);
  if (Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions?.length ?? 0) === 0)
    out.push(invalid(field, goLabelSelector(selector), emptyDetail));
  if (labelSelectorError(selector)) out.push(invalid(asSelectorField, goLabelSelector(selector), ''));
  return out;
}

/** UpdatePriorityStrategy's FieldsValidation: its first problem in upstream's words, or undefined. */
export function priorityStrategyError(
  priority: UpdatePriorityStrategy | undefined | null,
): string | undefined {
  if (!priority) return undefined;
  if (priority.weightPriority?.length && priority.orderPriority?.length)
    return 'only one of weightPriority and orderPriority can be used';
  for (const w of priority.weightPriority ?? []) {
    const sel = w.matchSelector ?? {};
    if (w.weight < 0 || w.weight > 100) return 'weight must be valid number in the range 1-100';
    if (!Object.keys(sel.matchLabels ?? {}).length && !sel.matchExpressions?.length)
      return 'selector can not be empty';
    const e = labelSelectorError(sel);
    if (e) return `invalid selector ${e}`;
  }
  if ((priority.orderPriority ?? []).some((o) => !o.orderedKey)) return 'order key can not be empty';
  return undefined;
}
