import type { StatusCause } from '../../errors.ts';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** kube-apiserver's message for a name that is not a DNS-1123 subdomain, or '' when valid. */
export function dns1123SubdomainError(value: string): string {
  if (value.length > 253) return 'must be no more than 253 characters';
  if (!DNS1123_SUBDOMAIN.test(value)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  }
  return '';
}

/** kube-apiserver's message for a name that is not a DNS-1123 label, or '' when valid. */
export function dns1123LabelError(value: string): string {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!DNS1123_LABEL.test(value)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  }
  return '';
}

/** Validates a label key (`prefix/name`) and value; returns causes. */
export function labelCauses(labels: unknown, field: string): StatusCause[] {
  if (labels === undefined || labels === null) return [];
  if (typeof labels !== 'object' || Array.isArray(labels)) {
    return [{ reason: 'FieldValueInvalid', field, message: 'Invalid value: must be a map of strings' }];
  }
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(labels as Record<string, unknown>)) {
    const slash = key.lastIndexOf('/');
    const name = slash === -1 ? key : key.slice(slash + 1);
    const prefix = slash === -1 ? '' : key.slice(0, slash);
    if (
      !name ||
      name.length > 63 ||
      !QUALIFIED_NAME_PART.test(name) ||
      (prefix && dns1123SubdomainError(prefix))
    ) {
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      });
    }
    if (typeof value !== 'string') {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${field}.${key}`,
        message: 'Invalid value: must be a string',
      });
    } else if (value.length > 63 || (value !== '' && !QUALIFIED_NAME_PART.test(value))) {
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      });
    }
  }
  return causes;
}

/** A `Required value` cause. */
export const required = (field: string): StatusCause => ({
  reason: 'FieldValueRequired',
  field,
  message: 'Required value',
});

/** An `Invalid value` cause. */
export const invalidValue = (field: string, value: unknown, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
});
