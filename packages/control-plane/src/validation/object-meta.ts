import { invalid, type StatusCause } from '../errors.ts';
import { dns1123LabelError, dns1123SubdomainError, labelCauses } from '../registry/builtins/validation.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';
import { builtinSchemaCauses } from '../schemas/builtin-kinds.ts';
import { applySchemaDefaults, pruneUnknownFields, validateAgainstSchema } from './openapi-schema.ts';
import { ownerReferenceCauses } from './owner-references.ts';

/** Checks metadata every object must satisfy (name, labels, annotations). */
export function metadataCauses(type: ResourceType, obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const meta = obj.metadata ?? {};
  const name = meta.name;
  if (typeof name !== 'string' || name === '') {
    causes.push({
      reason: 'FieldValueRequired',
      field: 'metadata.name',
      message: 'Required value: name or generateName is required',
    });
  } else {
    const problem = type.plural === 'namespaces' ? dns1123LabelError(name) : dns1123SubdomainError(name);
    if (problem)
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: "${name}": ${problem}`,
      });
  }
  causes.push(...labelCauses(meta.labels, 'metadata.labels'));
  if (meta.annotations !== undefined && meta.annotations !== null) {
    if (typeof meta.annotations !== 'object' || Array.isArray(meta.annotations)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.annotations',
        message: 'Invalid value: must be a map of strings',
      });
    } else {
      let size = 0;
      for (const [k, v] of Object.entries(meta.annotations)) {
        if (typeof v !== 'string') {
          causes.push({
            reason: 'FieldValueInvalid',
            field: `metadata.annotations.${k}`,
            message: 'Invalid value: must be a string',
          });
        } else size += k.length + v.length;
      }
      if (size > 256 * 1024) {
        causes.push({
          reason: 'FieldValueTooLong',
          field: 'metadata.annotations',
          message: 'Too long: must have at most 262144 bytes',
        });
      }
    }
  }
  causes.push(...ownerReferenceCauses(meta.ownerReferences));
  if (meta.finalizers !== undefined && !Array.isArray(meta.finalizers)) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'metadata.finalizers',
      message: 'Invalid value: must be a list of strings',
    });
  }
  return causes;
}

/** Prunes, defaults and validates a custom resource against its CRD schema. Returns pruned field paths. */
export function prepareCustomResource(type: ResourceType, obj: KubeObject): string[] {
  if (!type.schema) return [];
  const metadata = obj.metadata;
  const pruned = pruneUnknownFields(
    obj,
    { ...type.schema, properties: { ...type.schema.properties, apiVersion: {}, kind: {}, metadata: {} } },
    '',
  );
  obj.metadata = metadata;
  applySchemaDefaults(obj, type.schema);
  return pruned;
}

/** Throws 422 Invalid when the object breaks its schema, built-in rules or metadata rules. */
export function validateObject(
  type: ResourceType,
  obj: KubeObject,
  old: KubeObject | undefined,
  subresource = '',
): void {
  const causes = metadataCauses(type, obj);
  if (type.schema) {
    const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj;
    const schema = { ...type.schema, properties: { ...type.schema.properties } };
    delete schema.properties.metadata;
    delete schema.properties.apiVersion;
    delete schema.properties.kind;
    validateAgainstSchema(rest, schema, '', causes);
  }
  if (type.validate) causes.push(...type.validate(obj, old, subresource));
  // The schema's required fields and enums where kube-apiserver's own rules (above) said nothing of
  // that field; metadata and status have their own rules only.
  const reported = new Set(causes.map((c) => c.field));
  for (const c of builtinSchemaCauses(type, obj)) {
    const top = c.field?.split(/[.[]/)[0];
    if (top === 'metadata' || top === 'status' || reported.has(c.field)) continue;
    reported.add(c.field);
    causes.push(c);
  }
  if (causes.length) throw invalid(type.kind, type.group, obj.metadata?.name ?? '', causes);
}
