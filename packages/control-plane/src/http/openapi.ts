import { createHash } from 'node:crypto';
import type { ResourceRegistry } from '../registry/registry.ts';
import { apiVersionOf, type ResourceType } from '../registry/types.ts';
import { builtinDefinition, builtinSchemas } from '../schemas/builtin-kinds.ts';
import { definitionClosure } from '../schemas/openapi-closure.ts';

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** `/openapi/v3`: one entry per group-version, with a content hash in the URL as kube-apiserver does. */
export function openApiV3Index(registry: ResourceRegistry) {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  const seen = new Set<string>();
  for (const type of registry.all()) {
    const p = gvPath(type.group, type.version);
    if (seen.has(p)) continue;
    seen.add(p);
    const hash = createHash('sha256')
      .update(JSON.stringify(openApiV3Document(registry, type.group, type.version)))
      .digest('hex')
      .slice(0, 32)
      .toUpperCase();
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hash}` };
  }
  return { paths };
}

const defName = (t: ResourceType) => `${t.group || 'core'}.${t.version}.${t.kind}`.replace(/\//g, '.');

const gvk = (t: ResourceType) => ({ group: t.group, version: t.version, kind: t.kind });

/** A custom resource's (or a kind without a Kubernetes schema) definition: its CRD schema with the object fields. */
function customResourceSchema(t: ResourceType): Record<string, any> {
  const schema = t.schema
    ? structuredClone(t.schema)
    : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  schema.properties = {
    ...schema.properties,
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  };
  schema['x-kubernetes-group-version-kind'] = [gvk(t)];
  return schema;
}

/**
 * `/openapi/v2`: one Swagger 2.0 document with the definitions of every served kind (Kubernetes'
 * own for built-ins, the CRD schema for custom resources), for kubectl explain and validation.
 */
export function openApiV2Document(registry: ResourceRegistry) {
  const definitions: Record<string, unknown> = {};
  const paths: Record<string, unknown> = {};
  for (const t of registry.all()) {
    const builtin = builtinDefinition(t);
    if (builtin) {
      Object.assign(definitions, definitionClosure(builtinSchemas, [builtin], 'v2'));
      const own = definitions[builtin] as Record<string, any>;
      const kinds = own['x-kubernetes-group-version-kind'] ?? [];
      definitions[builtin] = { ...own, 'x-kubernetes-group-version-kind': [...kinds, gvk(t)] };
    } else if (!t.virtual) definitions[defName(t)] = customResourceSchema(t);
    const ref = { $ref: `#/definitions/${builtin ?? defName(t)}` };
    const base = `/${gvPath(t.group, t.version)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.plural}`;
    paths[`${base}/{name}`] = {
      get: {
        operationId: `read${t.kind}`,
        'x-kubernetes-action': 'get',
        'x-kubernetes-group-version-kind': gvk(t),
        responses: { '200': { description: 'OK', schema: ref } },
      },
    };
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.33.0' }, paths, definitions };
}

function operation(t: ResourceType, action: string, withFieldValidation: boolean) {
  return {
    operationId: `${action}${t.kind}`,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: t.group, version: t.version, kind: t.kind },
    parameters: withFieldValidation
      ? [
          { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'dryRun', in: 'query', schema: { type: 'string' } },
          { name: 'fieldManager', in: 'query', schema: { type: 'string' } },
        ]
      : [],
    responses: {
      '200': {
        description: 'OK',
        content: {
          'application/json': {
            schema: { $ref: `#/components/schemas/${builtinDefinition(t) ?? defName(t)}` },
          },
        },
      },
    },
  };
}

/** The OpenAPI v3 document of one group-version: enough for kubectl's server-side field validation. */
export function openApiV3Document(registry: ResourceRegistry, group: string, version: string) {
  const types = registry.all().filter((t) => t.group === group && t.version === version);
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const t of types) {
    const base = `/${gvPath(group, version)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.plural}`;
    if (t.virtual) {
      paths[base] = { post: operation(t, 'post', true) };
    } else {
      paths[base] = { get: operation(t, 'list', false), post: operation(t, 'post', true) };
      paths[`${base}/{name}`] = {
        get: operation(t, 'get', false),
        put: operation(t, 'put', true),
        patch: operation(t, 'patch', true),
        delete: operation(t, 'delete', false),
      };
    }
    const builtin = builtinDefinition(t);
    if (builtin) {
      Object.assign(schemas, definitionClosure(builtinSchemas, [builtin], 'v3'));
      schemas[builtin] = { ...(schemas[builtin] as object), 'x-kubernetes-group-version-kind': [gvk(t)] };
      continue;
    }
    schemas[defName(t)] = customResourceSchema(t);
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas },
  };
}

/** The apiVersion string for a group-version path such as `apis/apps/v1`. */
export function groupVersionOfPath(path: string): { group: string; version: string } | undefined {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'api' && parts.length === 2) return { group: '', version: parts[1]! };
  if (parts[0] === 'apis' && parts.length === 3) return { group: parts[1]!, version: parts[2]! };
  return undefined;
}

export { apiVersionOf };
