import type { KubeObject } from '@kruise/runtime/kube/client';
import { objectPath } from '@kruise/runtime/kube/resources';
import { jsonPatchDiff } from '@kruise/runtime/webhook/json-patch-diff';
import type { CommandContext } from './command.ts';
import type { WorkloadKind } from './kinds.ts';
import type { Target } from './targets.ts';

/** One RFC 6902 operation this plugin sends (`test` guards the index of a container). */
export type PatchOperation =
  | { op: 'add' | 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'test'; path: string; value: unknown };

/** A pod template as JSON. */
export type PodTemplate = { metadata?: Record<string, any>; spec?: Record<string, any> };

const CONTAINER_LISTS = ['initContainers', 'containers'] as const;

/** Reads the value at JSON path segments. */
export function readPath(obj: unknown, segments: readonly string[]): any {
  let cur: any = obj;
  for (const s of segments) cur = cur?.[s];
  return cur;
}

/** The pod template of a workload object. */
export const templateOf = (kind: WorkloadKind, obj: KubeObject): PodTemplate =>
  (readPath(obj, kind.templatePath) as PodTemplate) ?? {};

/** An RFC 6901 pointer of path segments. */
export const pointer = (segments: readonly (string | number)[]) =>
  segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/**
 * The JSON Patch that turns one pod template into another without replacing its container lists:
 * each changed container is patched field by field at its index, after a `test` that the index
 * still holds that container (a concurrent reorder fails the patch instead of editing the wrong
 * container). Other template fields are patched key by key. An empty list means no change.
 */
export function templatePatch(kind: WorkloadKind, before: PodTemplate, after: PodTemplate): PatchOperation[] {
  const base = pointer(kind.templatePath);
  const ops: PatchOperation[] = [];
  const strip = (t: PodTemplate) => {
    const spec = { ...(t.spec ?? {}) };
    for (const list of CONTAINER_LISTS) delete spec[list];
    return { ...t, spec };
  };
  ops.push(...(jsonPatchDiff(strip(before), strip(after), base) as PatchOperation[]));
  for (const list of CONTAINER_LISTS) {
    const from: any[] = before.spec?.[list] ?? [];
    const to: any[] = after.spec?.[list] ?? [];
    if (from.length !== to.length) throw new Error(`the number of ${list} changed`);
    from.forEach((container, i) => {
      const at = `${base}/spec/${list}/${i}`;
      const diff = jsonPatchDiff(container, to[i], at) as PatchOperation[];
      if (diff.length) ops.push({ op: 'test', path: `${at}/name`, value: container.name }, ...diff);
    });
  }
  return ops;
}

/** The outcome of {@link editTemplate}. */
export interface TemplateEdit {
  /** The object before the edit. */
  before: KubeObject;
  /** Whether the template changed (nothing is sent when it did not). */
  changed: boolean;
  /** The object as written: the server's answer, or under a client dry run the edited copy. */
  after: KubeObject;
}

/** A copy of a workload object with its pod template replaced. */
export function withTemplate(kind: WorkloadKind, obj: KubeObject, template: PodTemplate): KubeObject {
  const copy = structuredClone(obj);
  const parent = readPath(copy, kind.templatePath.slice(0, -1));
  parent[kind.templatePath[kind.templatePath.length - 1] as string] = template;
  return copy;
}

/**
 * Reads a workload, lets `edit` change a copy of its pod template, and sends only the difference
 * as a JSON Patch (`dryRun` = server-side dry run; `client` = send nothing). Under `--local` the
 * object read from `-f` is edited and nothing is read or sent.
 */
export async function editTemplate(
  ctx: CommandContext,
  target: Target,
  edit: (template: PodTemplate, object: KubeObject) => void,
  dryRun: 'none' | 'client' | 'server',
): Promise<TemplateEdit> {
  const { kind, namespace, name } = target;
  const local = ctx.flags.local === true && target.object;
  const before = local || (await ctx.client().get(kind.resource, namespace, name));
  const template = structuredClone(templateOf(kind, before));
  edit(template, before);
  const ops = templatePatch(kind, templateOf(kind, before), template);
  const after =
    ops.length && dryRun !== 'client' && !local
      ? await ctx.client().request<KubeObject>('PATCH', objectPath(kind.resource, namespace, name), {
          body: ops,
          contentType: 'application/json-patch+json',
          query: { dryRun: dryRun === 'server' ? 'All' : undefined },
        })
      : withTemplate(kind, before, template);
  return { before, changed: ops.length > 0, after };
}

/** Containers (init containers first) whose name matches kubectl's `-c` glob (`*` = all). */
export function matchingContainers(template: PodTemplate, glob: string): Record<string, any>[] {
  const re = new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return CONTAINER_LISTS.flatMap((list) => (template.spec?.[list] ?? []) as Record<string, any>[]).filter(
    (c) => re.test(String(c.name)),
  );
}
