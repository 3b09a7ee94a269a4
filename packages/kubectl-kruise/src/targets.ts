import type { KubeObject } from '@kruise/runtime/kube/client';
import type { CommandContext } from './command.ts';
import { filenamesOf, fileTargets } from './filenames.ts';
import { qualifiedName, requireKind, type WorkloadKind } from './kinds.ts';

/** One object a command acts on. */
export interface Target {
  kind: WorkloadKind;
  namespace: string;
  name: string;
  /** The object when it was read while resolving (a selector or `--all`). */
  object?: KubeObject;
}

/** kubectl's message when no resource is named at all. */
export const NO_RESOURCES = `You must provide one or more resources by argument or filename.
Example resource specifications include:
   '-f rsrc.yaml'
   '--filename=rsrc.json'
   '<resource> <name>'
   '<resource>'`;

const SEPARATE_TYPE =
  "there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'";

/**
 * Resolves resource arguments as kubectl's resource builder does: `-f FILE` (see filenames.ts), `TYPE/NAME ...`, `TYPE NAME ...`,
 * or `TYPE` with `-l/--selector` or `--all` (listing the namespace, or every namespace with `-A`
 * where the command has it). `missing` is the command's message when no argument is given.
 */
export async function resolveTargets(
  ctx: CommandContext,
  args: readonly string[],
  missing = NO_RESOURCES,
): Promise<Target[]> {
  if (filenamesOf(ctx).length) return fileTargets(ctx, args);
  if (ctx.flags.local === true) throw new Error(NO_RESOURCES);
  if (args.length === 0) throw new Error(missing);
  const namespace = ctx.namespace();
  const [first, ...rest] = args as [string, ...string[]];
  if (first.includes('/')) {
    return args.map((arg) => {
      const slash = arg.indexOf('/');
      if (slash < 0) throw new Error(SEPARATE_TYPE);
      const name = arg.slice(slash + 1);
      if (!name) throw new Error(`arguments in resource/name form must have a single resource and name`);
      return { kind: requireKind(arg.slice(0, slash)), namespace, name };
    });
  }
  const kind = requireKind(first);
  if (rest.some((a) => a.includes('/'))) throw new Error(SEPARATE_TYPE);
  if (rest.length) return rest.map((name) => ({ kind, namespace, name }));
  const selector = typeof ctx.flags.selector === 'string' ? ctx.flags.selector : '';
  if (!selector && ctx.flags.all !== true)
    throw new Error('resource(s) were provided, but no name was specified');
  const allNamespaces = ctx.flags['all-namespaces'] === true;
  const list = await ctx.client().listAll(kind.resource, {
    ...(allNamespaces ? {} : { namespace }),
    ...(selector ? { labelSelector: selector } : {}),
  });
  if (list.items.length === 0)
    throw new Error(allNamespaces ? 'No resources found' : `No resources found in ${namespace} namespace.`);
  return list.items.map((object) => ({
    kind,
    namespace: object.metadata?.namespace ?? namespace,
    name: object.metadata?.name ?? '',
    object,
  }));
}

/** `cloneset.apps.kruise.io/name`, as kubectl prints an object it acted on. */
export const targetName = (t: Target): string => `${qualifiedName(t.kind)}/${t.name}`;
