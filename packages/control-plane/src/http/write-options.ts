import type { WriteOptions } from '../api/context.ts';
import type { DeleteOptions } from '../api/objects.ts';
import type { UserInfo } from '../auth/attributes.ts';
import { invalid, type StatusCause } from '../errors.ts';

const FIELD_VALIDATION = ['', 'Ignore', 'Strict', 'Warn'];
const PROPAGATION = ['Foreground', 'Background', 'Orphan'];

/** The options kind kube-apiserver validates for each verb, as its 422 names it. */
const OPTIONS_KIND: Record<string, string> = {
  create: 'CreateOptions',
  update: 'UpdateOptions',
  patch: 'PatchOptions',
  delete: 'DeleteOptions',
  deletecollection: 'DeleteOptions',
};

const quoted = (values: string[]) => values.map((v) => JSON.stringify(v)).join(', ');

/** `Unsupported value: …: supported values: …` as apimachinery's field.NotSupported words it. */
const notSupported = (field: string, shown: string, supported: string[]): StatusCause => ({
  reason: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${shown}: supported values: ${quoted(supported)}`,
});

function dryRunCauses(values: string[]): StatusCause[] {
  if (values.every((v) => v === 'All')) return [];
  return [notSupported('dryRun', `[]string{${quoted(values)}}`, ['All'])];
}

function optionsInvalid(verb: string, causes: StatusCause[]): void {
  if (causes.length) throw invalid(OPTIONS_KIND[verb] ?? 'CreateOptions', 'meta.k8s.io', '', causes);
}

/**
 * The options of a write from its query, validated as kube-apiserver validates Create/Update/
 * PatchOptions (`dryRun` only `All`, `fieldValidation` one of its values): a bad value is a 422
 * before anything is read or written.
 */
export function writeOptionsOf(verb: string, query: URLSearchParams, user: UserInfo, subresource: string) {
  const dryRun = query.getAll('dryRun');
  const fieldValidation = query.get('fieldValidation') ?? '';
  if (OPTIONS_KIND[verb]) {
    const causes = dryRunCauses(dryRun);
    if (verb !== 'delete' && verb !== 'deletecollection' && !FIELD_VALIDATION.includes(fieldValidation))
      causes.push(notSupported('fieldValidation', JSON.stringify(fieldValidation), FIELD_VALIDATION));
    optionsInvalid(verb, causes);
  }
  return {
    user,
    warnings: [] as string[],
    dryRun: dryRun.includes('All'),
    fieldValidation: fieldValidation || 'Warn',
    subresource,
  } satisfies WriteOptions;
}

/**
 * DeleteOptions from the body (a `DeleteOptions` object) and the query, validated as
 * kube-apiserver's ValidateDeleteOptions: an unknown `propagationPolicy` or `dryRun` is a 422 and
 * nothing is deleted.
 */
export function deleteOptionsOf(
  verb: string,
  body: any,
  query: URLSearchParams,
  base: WriteOptions,
): DeleteOptions {
  const propagationPolicy = body?.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  const bodyDryRun: string[] = Array.isArray(body?.dryRun) ? body.dryRun : [];
  const causes: StatusCause[] = [];
  if (
    body?.orphanDependents !== undefined &&
    body?.orphanDependents !== null &&
    propagationPolicy !== undefined
  )
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'propagationPolicy',
      message: `Invalid value: ${JSON.stringify(propagationPolicy)}: orphanDependents and deletionPropagation cannot be both set`,
    });
  if (propagationPolicy !== undefined && !PROPAGATION.includes(propagationPolicy))
    causes.push(
      notSupported('propagationPolicy', JSON.stringify(propagationPolicy), [...PROPAGATION, 'nil']),
    );
  causes.push(...dryRunCauses(bodyDryRun));
  optionsInvalid(verb, causes);
  const orphan = body?.orphanDependents === true ? 'Orphan' : undefined;
  return {
    ...base,
    propagationPolicy: propagationPolicy ?? orphan,
    gracePeriodSeconds:
      body?.gracePeriodSeconds ??
      (query.has('gracePeriodSeconds') ? Number(query.get('gracePeriodSeconds')) : undefined),
    preconditions: body?.preconditions,
    dryRun: base.dryRun || bodyDryRun.includes('All'),
  };
}
