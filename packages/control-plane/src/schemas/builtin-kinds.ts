import type { WriteOptions } from '../api/context.ts';
import { badRequest, type StatusCause } from '../errors.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';
import { BuiltinDecoder } from './builtin-decode.ts';
import { BuiltinSchemas } from './builtin-schemas.ts';

/** Kubernetes' schemas of the built-in kinds (from `kubernetes-models`), shared by every server in the process. */
export const builtinSchemas = new BuiltinSchemas();
const decoder = new BuiltinDecoder(builtinSchemas);

/** The schema definition of a served built-in kind, when Kubernetes has one. */
export function builtinDefinition(type: ResourceType): string | undefined {
  if (type.crdName || type.virtual) return undefined;
  return builtinSchemas.kindDefinition(type.group, type.version, type.kind);
}

/**
 * Decodes a built-in object from a client as kube-apiserver does: wrong JSON types are a 400,
 * unknown fields are dropped and, per `fieldValidation`, refused (`Strict`, 400), reported as
 * warnings (`Warn`, the default) or dropped silently (`Ignore`).
 */
export function decodeBuiltin(type: ResourceType, obj: KubeObject, options: WriteOptions): void {
  const definition = builtinDefinition(type);
  if (!definition) return;
  const unknown = decoder.decode(definition, type.kind, type.version, obj);
  if (!unknown.length) return;
  if (options.fieldValidation === 'Strict')
    throw badRequest(
      `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`,
    );
  if (options.fieldValidation !== 'Ignore')
    options.warnings?.push(...unknown.map((f) => `unknown field "${f}"`));
}

/** Required fields and enum values of a built-in object, as causes of a 422. */
export function builtinSchemaCauses(type: ResourceType, obj: KubeObject): StatusCause[] {
  const definition = builtinDefinition(type);
  return definition ? decoder.causes(definition, obj) : [];
}
