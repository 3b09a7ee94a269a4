import type { StatusCause } from '../../errors.ts';

/**
 * Field errors worded as kube-apiserver's `field.Error` prints them (Kubernetes 1.32: values in
 * Go's `%#v` syntax, strings quoted).
 */

/** A value as Go's `%#v` prints the common cases (strings, numbers, string maps, label selectors). */
export function goValue(value: unknown, mapType = 'map[string]string'): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map((v) => goValue(v)).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
  return `${mapType}{${entries.map(([k, v]) => `${JSON.stringify(k)}:${goValue(v)}`).join(', ')}}`;
}

/** A string map as `%#v` prints it, `map[string]string(nil)` when absent. */
export function goStringMap(value: unknown): string {
  return value === undefined || value === null ? 'map[string]string(nil)' : goValue(value);
}

/** A metav1.LabelSelector as `%#v` prints it. */
export function goLabelSelector(selector: any): string {
  const expressions = selector?.matchExpressions;
  const exprs = Array.isArray(expressions)
    ? `[]v1.LabelSelectorRequirement{${expressions
        .map(
          (e: any) =>
            `v1.LabelSelectorRequirement{Key:${JSON.stringify(e?.key ?? '')}, Operator:${JSON.stringify(e?.operator ?? '')}, Values:${Array.isArray(e?.values) ? `[]string{${e.values.map((v: unknown) => JSON.stringify(String(v))).join(', ')}}` : '[]string(nil)'}}`,
        )
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(selector?.matchLabels)}, MatchExpressions:${exprs}}`;
}

/** `Invalid value: <value>: <detail>` with the value already formatted. */
export const invalidAs = (field: string, formatted: string, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${formatted}: ${detail}`,
});

/** ValidateNonnegativeField. */
export function nonNegative(field: string, value: unknown): StatusCause[] {
  return typeof value === 'number' && value < 0
    ? [invalidAs(field, String(value), 'must be greater than or equal to 0')]
    : [];
}

/** field.NotSupported. */
export const notSupported = (field: string, value: unknown, supported: string[]): StatusCause => ({
  reason: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${goValue(value ?? '')}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
});

/** field.Forbidden. */
export const forbiddenField = (field: string, detail: string): StatusCause => ({
  reason: 'FieldValueForbidden',
  field,
  message: `Forbidden: ${detail}`,
});

/** field.Required with a detail. */
export const requiredWith = (field: string, detail: string): StatusCause => ({
  reason: 'FieldValueRequired',
  field,
  message: detail ? `Required value: ${detail}` : 'Required value',
});
