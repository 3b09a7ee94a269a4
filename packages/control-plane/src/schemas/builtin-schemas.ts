import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDts } from './dts-reader.ts';

/** An OpenAPI schema (the subset the built-in definitions use). */
export type Schema = Record<string, any>;

/** The package directory of an installed npm package, found from this file up. */
function packageRoot(name: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const up = dirname(dir);
    if (up === dir) throw new Error(`${name} is not installed`);
    dir = up;
  }
}

/**
 * The number formats of a model's properties (`replicas` → `int32`), read from the validator
 * `kubernetes-models` compiled from the same schema (the declaration files only say `number`).
 */
function numberFormats(js: string): Map<string, string> {
  const formats = new Map<string, string>();
  for (const m of js.matchAll(/void 0!==data\.(\w+)&&\(?(?:null!==data\.\w+&&)?\(?(validate\d+)\(/g)) {
    const start = js.indexOf(`function ${m[2]}(`);
    if (start === -1) continue;
    const end = js.indexOf('function validate', start + 1);
    const body = js.slice(start, end === -1 ? undefined : end);
    const format = /params:\{format:"(int32|int64|double|float)"\}/.exec(body)?.[1];
    if (format) formats.set(m[1]!, format);
    else if (/params:\{type:"number"\}/.test(body)) formats.set(m[1]!, 'double');
  }
  return formats;
}

/** The OpenAPI type of a `number` property with its format. */
function numberType(type: string, format: string | undefined): Schema {
  if (type !== 'number' || !format) return {};
  return format === 'double' || format === 'float' ? { type: 'number', format } : { type: 'integer', format };
}

/** Kubernetes' definition-name prefix of an API group directory of `kubernetes-models`. */
function apiPrefix(groupDir: string): string {
  if (groupDir === 'apiextensions.k8s.io') return 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions';
  if (groupDir === 'apiregistration.k8s.io') return 'io.k8s.kube-aggregator.pkg.apis.apiregistration';
  return `io.k8s.api.${groupDir.split('.')[0]}`;
}

/**
 * Kubernetes' built-in schemas as the npm package `kubernetes-models` ships them (its declaration
 * files are generated from Kubernetes' OpenAPI document: every type, field, description, required
 * field and enum), turned back into OpenAPI definitions named as Kubernetes names them
 * (`io.k8s.api.core.v1.Pod`). Read lazily, one kind's closure at a time, and kept.
 */
export class BuiltinSchemas {
  private readonly models = packageRoot('kubernetes-models');
  private readonly machinery = packageRoot('@kubernetes-models/apimachinery');
  /** Definition name → schema (refs as `#/definitions/<name>`). */
  readonly definitions = new Map<string, Schema>();
  /** Definition name → the Go type it describes (`v1.PodSpec`), for decoding errors. */
  readonly goTypes = new Map<string, string>();
  private readonly byKind = new Map<string, string | null>();

  /** The definition name of a served kind, or undefined when `kubernetes-models` has none. */
  kindDefinition(group: string, version: string, kind: string): string | undefined {
    const key = `${group}/${version}/${kind}`;
    if (!this.byKind.has(key)) {
      const file = join(this.models, group || '', version, `${kind}.d.ts`);
      this.byKind.set(key, existsSync(file) ? this.load(file) : null);
    }
    return this.byKind.get(key) ?? undefined;
  }

  /** The name of the definition a declaration file holds (loading it and what it refers to). */
  private load(file: string): string {
    const name = this.nameOf(file);
    if (this.definitions.has(name)) return name;
    this.definitions.set(name, {});
    const dts = readDts(readFileSync(file, 'utf8'));
    const ref = (local: string): string | undefined => {
      const from = dts.imports.get(local);
      if (!from) return undefined;
      const target = from.startsWith('.')
        ? resolve(dirname(file), from.replace(/\.js$/, '.d.ts'))
        : from.startsWith('@kubernetes-models/apimachinery/')
          ? join(this.machinery, `${from.slice('@kubernetes-models/apimachinery/'.length)}.d.ts`)
          : undefined;
      return target && existsSync(target) ? this.load(target) : undefined;
    };
    const root = file.startsWith(this.machinery) ? this.machinery : this.models;
    const validator = dts.validatorModule ? join(root, '_schemas', `${dts.validatorModule}.js`) : '';
    const formats =
      validator && existsSync(validator) ? numberFormats(readFileSync(validator, 'utf8')) : new Map();
    const schema = dts.model
      ? this.objectSchema(dts.model, ref, formats)
      : {
          ...this.typeSchema(dts.alias?.type ?? 'any', ref),
          ...(dts.alias?.description ? { description: dts.alias.description } : {}),
        };
    this.definitions.set(name, schema);
    return name;
  }

  private objectSchema(
    model: NonNullable<ReturnType<typeof readDts>['model']>,
    ref: (n: string) => string | undefined,
    formats: Map<string, string>,
  ) {
    if (model.properties.length === 0)
      return {
        type: 'object',
        ...(model.description ? { description: model.description } : {}),
        'x-kubernetes-preserve-unknown-fields': true,
      };
    const properties: Record<string, Schema> = {};
    for (const p of model.properties) {
      properties[p.name] =
        p.name === 'apiVersion' || p.name === 'kind'
          ? { type: 'string', ...(p.description ? { description: p.description } : {}) }
          : {
              ...this.typeSchema(p.type, ref),
              ...numberType(p.type, formats.get(p.name)),
              ...(p.description ? { description: p.description } : {}),
            };
    }
    const required = model.properties.filter(
      (p) => !p.optional && p.name !== 'apiVersion' && p.name !== 'kind',
    );
    return {
      type: 'object',
      ...(model.description ? { description: model.description } : {}),
      properties,
      ...(required.length ? { required: required.map((p) => p.name) } : {}),
    };
  }

  /** The schema of a TypeScript type expression of the declaration files. */
  private typeSchema(type: string, ref: (n: string) => string | undefined): Schema {
    const t = type.trim();
    const array = /^Array<(.+)>$/.exec(t);
    if (array) return { type: 'array', items: this.typeSchema(array[1]!, ref) };
    const map = /^\{ \[key: string\]: (.+); \}$/.exec(t);
    if (map) return { type: 'object', additionalProperties: this.typeSchema(map[1]!, ref) };
    const alternatives = t.split(' | ').map((a) => a.trim());
    if (alternatives.length > 1 && alternatives.every((a) => /^"[^"]*"$/.test(a)))
      return { type: 'string', enum: alternatives.map((a) => JSON.parse(a)) };
    if (alternatives.length > 1)
      return {
        anyOf: alternatives.map((a) => (a === 'number' ? { type: 'number' } : this.typeSchema(a, ref))),
      };
    if (/^"[^"]*"$/.test(t)) return { type: 'string', enum: [JSON.parse(t)] };
    if (t === 'string') return { type: 'string' };
    if (t === 'number') return { type: 'integer', format: 'int64' };
    if (t === 'boolean') return { type: 'boolean' };
    const target = ref(t);
    if (target) return { $ref: `#/definitions/${target}` };
    return { 'x-kubernetes-preserve-unknown-fields': true };
  }

  /** Kubernetes' definition name of a declaration file, and its Go type name on the side. */
  private nameOf(file: string): string {
    const fromMachinery = !relative(this.machinery, file).startsWith('..');
    const rel = relative(fromMachinery ? this.machinery : this.models, file).replace(/\.d\.ts$/, '');
    const parts = rel.split('/');
    const type = parts.at(-1)!;
    let name: string;
    let pkg: string;
    if (fromMachinery) {
      name = `io.k8s.apimachinery.pkg.${parts.join('.')}`;
      pkg = parts.at(-2) ?? '';
    } else if (parts.length === 2) {
      name = `io.k8s.api.core.${parts[0]}.${type}`;
      pkg = parts[0]!;
    } else {
      name = `${apiPrefix(parts[0]!)}.${parts[1]}.${type}`;
      pkg = parts[1]!;
    }
    this.goTypes.set(name, `${pkg}.${type}`);
    return name;
  }
}
