import type { StatusCause } from '../errors.ts';

const FIELD = 'metadata.ownerReferences';

const invalidValue = (field: string, value: unknown, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(value ?? '')}: ${detail}`,
});

/** A `*bool` as Go's `%#v` shows it (the address is not meaningful here, so a fixed one stands in). */
const goBoolPointer = (v: unknown) => (typeof v === 'boolean' ? '(*bool)(0xc000010000)' : '(*bool)(nil)');

/** The owner references as Go's `%#v` prints `[]v1.OwnerReference`. */
function goOwnerReferences(refs: any[]): string {
  const one = (r: any) =>
    `v1.OwnerReference{APIVersion:${JSON.stringify(r?.apiVersion ?? '')}, Kind:${JSON.stringify(r?.kind ?? '')}, Name:${JSON.stringify(r?.name ?? '')}, UID:${JSON.stringify(r?.uid ?? '')}, Controller:${goBoolPointer(r?.controller)}, BlockOwnerDeletion:${goBoolPointer(r?.blockOwnerDeletion)}}`;
  return `[]v1.OwnerReference{${refs.map(one).join(', ')}}`;
}

/**
 * kube-apiserver's ValidateOwnerReferences: each reference names an apiVersion with a version, a
 * kind, a name and a uid, and at most one is the controller.
 */
export function ownerReferenceCauses(refs: unknown): StatusCause[] {
  if (refs === undefined || refs === null) return [];
  if (!Array.isArray(refs))
    return [{ reason: 'FieldValueInvalid', field: FIELD, message: 'Invalid value: must be a list' }];
  const causes: StatusCause[] = [];
  let firstController = '';
  for (const ref of refs) {
    const apiVersion = String(ref?.apiVersion ?? '');
    const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion;
    if (!version) causes.push(invalidValue(`${FIELD}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!ref?.kind) causes.push(invalidValue(`${FIELD}.kind`, ref?.kind, 'kind must not be empty'));
    if (!ref?.name) causes.push(invalidValue(`${FIELD}.name`, ref?.name, 'name must not be empty'));
    if (!ref?.uid) causes.push(invalidValue(`${FIELD}.uid`, ref?.uid, 'uid must not be empty'));
    if (ref?.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController)
        causes.push({
          reason: 'FieldValueInvalid',
          field: FIELD,
          message: `Invalid value: ${goOwnerReferences(refs)}: Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
        });
      else firstController = current;
    }
  }
  return causes;
}
