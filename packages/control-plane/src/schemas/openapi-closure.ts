import type { BuiltinSchemas, Schema } from './builtin-schemas.ts';

/** Rewrites `#/definitions/` references for OpenAPI v3 (`#/components/schemas/`). */
function withRefs(schema: Schema, prefix: string): Schema {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === '$ref' && typeof value === 'string' ? `${prefix}${value.slice('#/definitions/'.length)}` : value,
  );
}

/**
 * The definitions a set of kinds needs (each kind's and everything it refers to), with references
 * written for OpenAPI v2 (`#/definitions/`) or v3 (`#/components/schemas/`).
 */
export function definitionClosure(
  schemas: BuiltinSchemas,
  roots: string[],
  version: 'v2' | 'v3',
): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  const pending = [...roots];
  while (pending.length) {
    const name = pending.pop()!;
    if (out[name]) continue;
    const schema = schemas.definitions.get(name);
    if (!schema) continue;
    out[name] = version === 'v3' ? withRefs(schema, '#/components/schemas/') : structuredClone(schema);
    for (const m of JSON.stringify(schema).matchAll(/"#\/definitions\/([^"]+)"/g)) pending.push(m[1]!);
  }
  return out;
}
