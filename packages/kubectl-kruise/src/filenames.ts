import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '@kruise/runtime/kube/client';
import { parseAllDocuments } from 'yaml';
import type { CommandContext } from './command.ts';
import type { FlagSpec } from './flags.ts';
import { kindOfObject } from './kinds.ts';
import type { Target } from './targets.ts';

/** kubectl's `-f/--filename` flag (files, directories, or `-` for standard input). */
export const FILENAME_FLAG: FlagSpec = {
  name: 'filename',
  short: 'f',
  type: 'strings',
  usage: 'Filename, directory, or URL to files identifying the resource to get from a server.',
};

/** kubectl's `--local` flag of the `set` commands. */
export const LOCAL_FLAG: FlagSpec = {
  name: 'local',
  type: 'bool',
  usage: 'If true, the command will NOT contact api-server but run locally (on the objects of -f).',
};

const EXTENSIONS = /\.(json|ya?ml)$/;

/** The paths of `-f`, or none when it is not given. */
export const filenamesOf = (ctx: CommandContext): string[] =>
  ((ctx.flags.filename as string[] | undefined) ?? []).filter(Boolean);

/** The files a path names: itself, or a directory's .json/.yaml/.yml files (as kubectl reads them). */
function filesOf(path: string): string[] {
  if (path === '-') return [path];
  let dir: boolean;
  try {
    dir = statSync(path).isDirectory();
  } catch {
    throw new Error(`the path "${path}" does not exist`);
  }
  if (!dir) return [path];
  return readdirSync(path)
    .filter((n) => EXTENSIONS.test(n))
    .sort()
    .map((n) => join(path, n));
}

/** The objects of one file (YAML documents or JSON; a `List`'s items flattened). */
function objectsOf(path: string): KubeObject[] {
  const text = readFileSync(path === '-' ? 0 : path, 'utf8');
  const source = path === '-' ? 'STDIN' : path;
  const objects: KubeObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new Error(`error parsing ${source}: ${doc.errors[0]?.message}`);
    const obj = doc.toJS() as KubeObject | null;
    if (!obj) continue;
    if (typeof obj !== 'object' || !obj.kind)
      throw new Error(`error validating "${source}": error validating data: kind not set`);
    if (obj.kind.endsWith('List') && Array.isArray(obj.items)) objects.push(...(obj.items as KubeObject[]));
    else objects.push(obj);
  }
  return objects;
}

/**
 * The targets `-f` names, as kubectl's resource builder reads them: each object's kind, name and
 * namespace (`-n` or the context's when the object has none; a different explicit `-n` is kubectl's
 * error). The object from the file is kept only under `--local` (otherwise the server's is used).
 */
export function fileTargets(ctx: CommandContext, args: readonly string[]): Target[] {
  if (args.some((a) => a.includes('/')))
    throw new Error('resource/name arguments cannot be provided when a path is specified');
  if (args.length)
    throw new Error(
      'when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well',
    );
  const namespace = ctx.namespace();
  const targets: Target[] = [];
  for (const path of filenamesOf(ctx).flatMap(filesOf)) {
    for (const object of objectsOf(path)) {
      const kind = kindOfObject(object);
      if (!kind)
        throw new Error(
          `unable to recognize "${path === '-' ? 'STDIN' : path}": no matches for kind "${object.kind}" in version "${object.apiVersion}"`,
        );
      const own = object.metadata?.namespace;
      if (own && own !== namespace && ctx.given.has('namespace'))
        throw new Error(
          `the namespace from the provided object "${own}" does not match the namespace "${namespace}". You must pass '--namespace=${own}' to perform this operation.`,
        );
      const name = object.metadata?.name ?? '';
      targets.push({
        kind,
        namespace: own ?? namespace,
        name,
        ...(ctx.flags.local === true ? { object } : {}),
      });
    }
  }
  return targets;
}

/** kubectl's refusal of `--local` with a server dry run, and of `--local` without files. */
export function checkLocal(ctx: CommandContext, strategy: 'none' | 'client' | 'server'): void {
  if (ctx.flags.local !== true) return;
  if (strategy === 'server')
    throw new Error('cannot specify --local and --dry-run=server - did you mean --dry-run=client?');
}
