/**
 * apimachinery's field.Error and ErrorList.ToAggregate, so denials read exactly as a Go webhook's:
 * `spec.replicas: Invalid value: -1: must be greater than or equal to 0`, several joined as
 * `[a, b]`.
 */

/** A value as Go's `%#v` prints it, for the few Go types our messages show. */
export class GoValue {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
}

/** One field error. */
export interface FieldError {
  type:
    | 'Invalid value'
    | 'Required value'
    | 'Forbidden'
    | 'Unsupported value'
    | 'Duplicate value'
    | 'Not found'
    | 'Internal error';
  field: string;
  value?: unknown;
  detail?: string;
}

const quote = (s: string) => JSON.stringify(s);

function valueText(v: unknown): string {
  if (v instanceof GoValue) return v.text;
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'string') return quote(v);
  return String(v);
}

/** The error's text (field.Error.Error()). */
export function fieldErrorText(e: FieldError): string {
  let body: string;
  if (e.type === 'Required value' || e.type === 'Forbidden' || e.type === 'Internal error') body = e.type;
  else body = `${e.type}: ${valueText(e.value)}`;
  if (e.detail) body += `: ${e.detail}`;
  return `${e.field}: ${body}`;
}

/** The message of a list of errors (duplicates dropped; one as is, several as `[a, b]`). */
export function aggregate(errors: FieldError[]): string {
  const texts = [...new Set(errors.map(fieldErrorText))];
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}

export const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  type: 'Invalid value',
  field,
  value,
  detail,
});
export const required = (field: string, detail = ''): FieldError => ({
  type: 'Required value',
  field,
  detail,
});
export const forbidden = (field: string, detail: string): FieldError => ({
  type: 'Forbidden',
  field,
  detail,
});
export const duplicate = (field: string, value: unknown): FieldError => ({
  type: 'Duplicate value',
  field,
  value,
});
/** field.InternalError: the error's words after `Internal error` (no value shown). */
export const internalError = (field: string, detail: string): FieldError => ({
  type: 'Internal error',
  field,
  detail,
});
export const notFound = (field: string, value: unknown): FieldError => ({ type: 'Not found', field, value });
export const notSupported = (field: string, value: unknown, supported: string[]): FieldError => ({
  type: 'Unsupported value',
  field,
  value,
  detail: `supported values: ${supported.map(quote).join(', ')}`,
});

/** `map[string]string{"a":"b"}` (keys sorted), or `map[string]string(nil)`. */
export function goStringMap(m: Record<string, string> | undefined | null): GoValue {
  if (!m) return new GoValue('map[string]string(nil)');
  const entries = Object.keys(m)
    .sort()
    .map((k) => `${quote(k)}:${quote(m[k]!)}`);
  return new GoValue(`map[string]string{${entries.join(', ')}}`);
}

/** `[]string{"a", "b"}`, or `[]string(nil)`. */
export function goStringSlice(s: string[] | undefined | null): GoValue {
  return goSlice('string', s?.map(quote));
}

/** A metav1.LabelSelector as `%#v` prints it. */
export function goLabelSelector(
  s: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] } | undefined,
): GoValue {
  if (!s) return new GoValue('null');
  const exprs = s.matchExpressions
    ? `[]v1.LabelSelectorRequirement{${(
        s.matchExpressions as { key: string; operator: string; values?: string[] }[]
      )
        .map(
          (e) =>
            `v1.LabelSelectorRequirement{Key:${quote(e.key)}, Operator:${quote(e.operator)}, Values:${goStringSlice(e.values).text}}`,
        )
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return new GoValue(
    `v1.LabelSelector{MatchLabels:${goStringMap(s.matchLabels).text}, MatchExpressions:${exprs}}`,
  );
}

/** An intstr.IntOrString as `%#v` prints it (Type 0 = int, 1 = string). */
export function goIntOrString(v: number | string | undefined | null): GoValue {
  if (v === undefined || v === null) return new GoValue('null');
  return typeof v === 'number'
    ? new GoValue(`intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`)
    : new GoValue(`intstr.IntOrString{Type:1, IntVal:0, StrVal:${quote(v)}}`);
}

/**
 * Where Go's `%#v` prints a non-nil pointer it prints the address the value lives at, which differs
 * from one request to the next; this fixed address stands in for it.
 */
export const GO_ADDRESS = '0xc000a1c000';

/** A pointer as `%#v` prints it inside a struct: `(*int32)(nil)` or `(*int32)(0xc…)`. */
export const goPointer = (type: string, present: boolean): string =>
  `(*${type})(${present ? GO_ADDRESS : 'nil'})`;

/** A struct as `%#v` prints it: `pkg.Type{Field:value, …}` (values already in Go's text). */
export const goStruct = (type: string, fields: [string, string][]): GoValue =>
  new GoValue(`${type}{${fields.map(([k, v]) => `${k}:${v}`).join(', ')}}`);

/** A slice as `%#v` prints it: `[]T{a, b}`, or `[]T(nil)` when absent. */
export const goSlice = (type: string, items: string[] | undefined): GoValue =>
  new GoValue(items ? `[]${type}{${items.join(', ')}}` : `[]${type}(nil)`);

/** A Go string as `%#v` prints it. */
export const goString = (s: string | undefined | null): string => quote(s ?? '');

/** ValidateNonnegativeField: `must be greater than or equal to 0` for a negative number. */
export const nonNegative = (field: string, v: number | undefined | null): FieldError[] =>
  v !== undefined && v !== null && v < 0 ? [invalid(field, v, 'must be greater than or equal to 0')] : [];
