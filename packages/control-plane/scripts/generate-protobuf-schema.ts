/**
 * Generates src/protobuf/generated/schema.ts from Kubernetes' own sources: the field numbers and types
 * of each kind's `generated.proto`, joined with the Go struct tags of its `types.go` (JSON name,
 * `omitempty`, pointer, `inline`), which is what decides how a protobuf message maps to JSON.
 *
 * Usage (each argument a git directory of kubernetes/api, kubernetes/apimachinery and
 * kubernetes/apiextensions-apiserver, read at the tag given):
 *   node scripts/generate-protobuf-schema.ts <api.git> <apimachinery.git> <apiextensions.git> v0.33.9
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [apiGit, machineryGit, extensionsGit, tag] = process.argv.slice(2);
if (!apiGit || !machineryGit || !extensionsGit || !tag) {
  console.error('usage: generate-protobuf-schema.ts <api.git> <apimachinery.git> <apiextensions.git> <tag>');
  process.exit(2);
}

/** Proto package directory → API group served (`''` for the core group). */
const API_DIRS: Record<string, string> = {
  'core/v1': '',
  'apps/v1': 'apps',
  'batch/v1': 'batch',
  'policy/v1': 'policy',
  'rbac/v1': 'rbac.authorization.k8s.io',
  'coordination/v1': 'coordination.k8s.io',
  'events/v1': 'events.k8s.io',
  'admissionregistration/v1': 'admissionregistration.k8s.io',
  'authentication/v1': 'authentication.k8s.io',
  'authorization/v1': 'authorization.k8s.io',
  'autoscaling/v1': 'autoscaling',
  'storage/v1': 'storage.k8s.io',
  'networking/v1': 'networking.k8s.io',
  'scheduling/v1': 'scheduling.k8s.io',
  'node/v1': 'node.k8s.io',
  'discovery/v1': 'discovery.k8s.io',
};

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
const show = (dir: string, path: string) => git(dir, 'show', `${tag}:${path}`);
const goFiles = (dir: string, pkg: string) =>
  git(dir, 'ls-tree', '--name-only', `${tag}:${pkg}`)
    .split('\n')
    .filter(
      (f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_') && !f.includes('.pb.'),
    )
    .map((f) => show(dir, `${pkg}/${f}`))
    .join('\n');

interface GoField {
  json: string;
  omitempty: boolean;
  pointer: boolean;
  inline: boolean;
  /** How server-side apply merges it: `m:key,key` (list map), `s` (set), `a` (atomic), `''` (default). */
  merge: string;
}

/** The merge strategy of a field from its `+listType`/`+listMapKey`/`+mapType` markers and patch tags. */
function mergeOf(comments: string[], line: string): string {
  const marker = (name: string) =>
    comments.flatMap((c) => [...c.matchAll(new RegExp(`\\+${name}=(\\w+)`, 'g'))].map((m) => m[1]!));
  const listType = marker('listType')[0];
  if (listType === 'map') return `m:${marker('listMapKey').join(',')}`;
  if (listType === 'set') return 's';
  if (listType === 'atomic' || marker('mapType')[0] === 'atomic' || marker('structType')[0] === 'atomic')
    return 'a';
  const strategy = /patchStrategy:"([^"]*)"/.exec(line)?.[1] ?? '';
  const key = /patchMergeKey:"([^"]*)"/.exec(line)?.[1];
  if (strategy.split(',').includes('merge')) return key ? `m:${key}` : 's';
  return '';
}

/** Struct types marked `+structType=atomic` (server-side apply owns them whole). */
const atomicStructs = new Set<string>();

/** Struct name → proto field name → what its Go tags say. */
function parseGoStructs(source: string): Map<string, Map<string, GoField>> {
  const structs = new Map<string, Map<string, GoField>>();
  for (const m of source.matchAll(/((?:^\/\/.*\n)*)^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
    if (/\+structType=atomic/.test(m[1]!)) atomicStructs.add(m[2]!);
    const fields = new Map<string, GoField>();
    let comments: string[] = [];
    for (const line of m[3]!.split('\n')) {
      if (line.trim().startsWith('//')) {
        comments.push(line);
        continue;
      }
      const proto = /protobuf:"[^"]*name=(\w+)/.exec(line);
      const doc = comments;
      comments = [];
      if (!proto) continue;
      const json = /json:"([^"]*)"/.exec(line)?.[1] ?? '';
      const decl = line.trim().split('`')[0]!.trim().split(/\s+/);
      const goType = decl.length > 1 ? decl[1]! : decl[0]!;
      const [name, ...opts] = json.split(',');
      fields.set(proto[1]!, {
        json: name || '',
        omitempty: opts.includes('omitempty'),
        pointer: goType.startsWith('*'),
        inline: opts.includes('inline'),
        merge: mergeOf(doc, line),
      });
    }
    structs.set(m[2]!, fields);
  }
  return structs;
}

/** Flags of a field, as the codec reads them. */
const REPEATED = 1;
const POINTER = 2;
const OMITEMPTY = 4;
const INLINE = 8;

type FieldRow = [number, string, string, number, string];
const messages: Record<string, FieldRow[]> = {};
const kinds: Record<string, string> = {};
const atomic: string[] = [];

function addProto(proto: string, structs: Map<string, Map<string, GoField>>, group: string | undefined) {
  const pkg = /^package ([\w.]+);/m.exec(proto)![1]!;
  const version = pkg.split('.').pop()!;
  const body = proto.replace(/\/\/.*$/gm, '');
  for (const m of body.matchAll(/^message (\w+) \{([\s\S]*?)^\}/gm)) {
    const name = m[1]!;
    const go = structs.get(name);
    const rows: FieldRow[] = [];
    for (const f of m[2]!.matchAll(/^\s*(optional|repeated)?\s*([\w.<>, ]+?)\s+(\w+)\s*=\s*(\d+);/gm)) {
      const label = f[1];
      let type = f[2]!.replace(/\s+/g, '');
      if (type.startsWith('.')) type = type.slice(1);
      else if (type.startsWith('map<'))
        type = type.replace(/,(?!k8s)(\w+)>$/, (_s, v) => `,${/^[a-z]/.test(v) ? v : `${pkg}.${v}`}>`);
      else if (!/^[a-z]/.test(type)) type = `${pkg}.${type}`;
      type = type.replace(/^map<(\w+),\.?/, 'map<$1,');
      const protoName = f[3]!;
      const tags = go?.get(protoName);
      let flags = label === 'repeated' && !type.startsWith('map<') ? REPEATED : 0;
      if (tags?.pointer) flags |= POINTER;
      if (tags?.omitempty) flags |= OMITEMPTY;
      if (tags?.inline) flags |= INLINE;
      rows.push([Number(f[4]), tags?.json || protoName, type, flags, tags?.merge ?? '']);
    }
    messages[`${pkg}.${name}`] = rows;
    if (atomicStructs.has(name)) atomic.push(`${pkg}.${name}`);
    if (group !== undefined && rows.some((r) => r[1] === 'metadata' || name.endsWith('Review'))) {
      kinds[`${group ? `${group}/` : ''}${version}/${name}`] = `${pkg}.${name}`;
    }
  }
}

for (const [dir, group] of Object.entries(API_DIRS)) {
  addProto(show(apiGit, `${dir}/generated.proto`), parseGoStructs(goFiles(apiGit, dir)), group);
}
for (const dir of ['pkg/apis/meta/v1', 'pkg/runtime', 'pkg/util/intstr', 'pkg/api/resource']) {
  addProto(
    show(machineryGit, `${dir}/generated.proto`),
    parseGoStructs(goFiles(machineryGit, dir)),
    undefined,
  );
}
const crdDir = 'pkg/apis/apiextensions/v1';
addProto(
  show(extensionsGit, `${crdDir}/generated.proto`),
  parseGoStructs(goFiles(extensionsGit, crdDir)),
  'apiextensions.k8s.io',
);

const out = join(dirname(fileURLToPath(import.meta.url)), '../src/protobuf/generated/schema.ts');
const lines = [
  `// Generated by scripts/generate-protobuf-schema.ts from k8s.io/api, apimachinery and apiextensions-apiserver ${tag}. Do not edit.`,
  '',
  '/**',
  ' * A field: number, JSON name, proto type (scalar, message or `map<K,V>`), flags (1 repeated, 2 pointer,',
  ' * 4 omitempty, 8 inline), and how server-side apply merges it (`m:keys` list map, `s` set, `a` atomic).',
  ' */',
  'export type FieldRow = readonly [number, string, string, number, string];',
  '',
  '/** Every message, by its full proto name. */',
  `export const MESSAGES: Record<string, readonly FieldRow[]> = ${JSON.stringify(messages)};`,
  '',
  '/** `apiVersion/Kind` → message, for the kinds served. */',
  `export const KINDS: Record<string, string> = ${JSON.stringify(kinds)};`,
  '',
  '/** Messages marked `+structType=atomic`. */',
  `export const ATOMIC_MESSAGES: ReadonlySet<string> = new Set(${JSON.stringify(atomic)});`,
  '',
];
writeFileSync(out, lines.join('\n'));
console.log(`${Object.keys(messages).length} messages, ${Object.keys(kinds).length} kinds → ${out}`);
