import { parseImageReference } from '@kruise/kube-compat';

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
    if (!/^[+-]?\d+$/.test(parallelism))
      return `parallelism must be a valid integer: strconv.Atoi: parsing "${parallelism}": invalid syntax`;
    if (Number(parallelism) < 0) return 'parallelism must be non-negative';
    return undefined;
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
