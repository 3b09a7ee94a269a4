import type { ObjectMeta } from '@kruise/api';
import { type FieldError, forbidden, invalid, required } from './field-errors.ts';
import {
  annotationsErrors,
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  labelsErrors,
} from './pod-template-validation.ts';

/**
 * apimachinery's object-metadata validation (ValidateObjectMeta, ValidateObjectMetaUpdate) with its
 * messages. Owner references, finalizers, managed fields and annotation sizes are left out: the API
 * server checks them before any validating webhook is called.
 */

/** A name's problems; `prefix` for a generateName (whose trailing dash is allowed). */
export type NameValidator = (name: string, prefix: boolean) => string[];

/** apimachinery's NameIsDNSLabel (names of namespaces, StatefulSets …). */
export const nameIsDnsLabel: NameValidator = (name, prefix) =>
  dns1123LabelErrors(prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name);

/** apimachinery's NameIsDNSSubdomain (names of DaemonSets, Deployments …). */
export const nameIsDnsSubdomain: NameValidator = (name, prefix) =>
  dns1123SubdomainErrors(prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name);

/**
 * ValidateObjectMeta: generateName and name by `nameErrors`, the namespace (required when
 * `namespaced`, forbidden otherwise), labels, annotations.
 */
export function objectMetaErrors(
  meta: ObjectMeta | undefined,
  nameErrors: NameValidator,
  namespaced = true,
): FieldError[] {
  const out: FieldError[] = [];
  const { name = '', generateName = '', namespace = '' } = meta ?? {};
  if (generateName)
    for (const msg of nameErrors(generateName, true))
      out.push(invalid('metadata.generateName', generateName, msg));
  if (!name) out.push(required('metadata.name', 'name or generateName is required'));
  else for (const msg of nameErrors(name, false)) out.push(invalid('metadata.name', name, msg));
  if (!namespaced) {
    if (namespace) out.push(forbidden('metadata.namespace', 'not allowed on this type'));
  } else if (!namespace) out.push(required('metadata.namespace'));
  else
    for (const msg of nameIsDnsLabel(namespace, false))
      out.push(invalid('metadata.namespace', namespace, msg));
  if ((meta?.generation ?? 0) < 0)
    out.push(invalid('metadata.generation', meta?.generation, 'must be greater than or equal to 0'));
  out.push(...labelsErrors(meta?.labels, 'metadata.labels'));
  out.push(...annotationsErrors(meta?.annotations, 'metadata.annotations'));
  return out;
}

const DASHED_NAME_FORMAT = '^[a-zA-Z0-9\\-]+$';
const DASHED_NAME = new RegExp(DASHED_NAME_FORMAT);

/**
 * The name rule of Kruise's own kinds (validateBroadcastJobName, validateAdvancedCronJobName,
 * validateSidecarSetName): letters, digits and '-', at most 63 characters; `subject` starts the
 * message (`BroadcastJob name`, `sidecarset name`).
 */
export const dashedNameErrors =
  (subject: string): NameValidator =>
  (name) => {
    const out: string[] = [];
    if (!DASHED_NAME.test(name))
      out.push(
        `${subject} must consist of alphanumeric characters or '-' (e.g. 'example-com', regex used for validation is '${DASHED_NAME_FORMAT}')`,
      );
    if (name.length > 63) out.push('must be no more than 63 characters');
    return out;
  };

/** ValidateObjectMetaUpdate: a resourceVersion, no smaller generation, the same name, namespace and uid, valid labels and annotations. */
export function objectMetaUpdateErrors(
  meta: ObjectMeta | undefined,
  old: ObjectMeta | undefined,
): FieldError[] {
  const out: FieldError[] = [];
  if (!meta?.resourceVersion)
    out.push(
      invalid('metadata.resourceVersion', meta?.resourceVersion ?? '', 'must be specified for an update'),
    );
  if ((meta?.generation ?? 0) < (old?.generation ?? 0))
    out.push(invalid('metadata.generation', meta?.generation ?? 0, 'must not be decremented'));
  for (const f of ['name', 'namespace', 'uid'] as const)
    if ((meta?.[f] ?? '') !== (old?.[f] ?? ''))
      out.push(invalid(`metadata.${f}`, meta?.[f] ?? '', 'field is immutable'));
  out.push(...labelsErrors(meta?.labels, 'metadata.labels'));
  out.push(...annotationsErrors(meta?.annotations, 'metadata.annotations'));
  return out;
}
