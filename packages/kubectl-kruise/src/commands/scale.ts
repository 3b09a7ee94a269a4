import type { KubeObject } from '@kruise/runtime/kube/client';
import { objectPath } from '@kruise/runtime/kube/resources';
import {
  ALL_FLAG,
  type Command,
  type CommandContext,
  DRY_RUN_FLAG,
  dryRunOf,
  dryRunSuffix,
  SELECTOR_FLAG,
} from '../command.ts';
import { FILENAME_FLAG } from '../filenames.ts';
import { checkOutputFormat, OUTPUT_FLAG, printObject } from '../print-object.ts';
import { resolveTargets, type Target, targetName } from '../targets.ts';

/** Reads the Scale, checks kubectl's preconditions and writes it back (guarded by its resourceVersion). */
async function scaleWithPreconditions(ctx: CommandContext, t: Target, replicas: number, dryRun: boolean) {
  const path = objectPath(t.kind.resource, t.namespace, t.name, 'scale');
  const scale = await ctx.client().request<KubeObject>('GET', path);
  const current = Number(ctx.flags['current-replicas']);
  const version = String(ctx.flags['resource-version'] ?? '');
  if (current !== -1 && scale.spec?.replicas !== current)
    throw new Error(`Expected replicas to be ${current}, was ${scale.spec?.replicas ?? 0}`);
  if (version && scale.metadata?.resourceVersion !== version)
    throw new Error(`Expected resourceVersion to be ${version}, was ${scale.metadata?.resourceVersion}`);
  await ctx.client().request('PUT', path, {
    body: { ...scale, spec: { ...scale.spec, replicas } },
    query: { dryRun: dryRun ? 'All' : undefined },
  });
}

/** `kubectl kruise scale`: kubectl's scale, through the workload's `scale` subresource. */
export const scale: Command = {
  path: 'scale',
  short: 'Set a new size for a CloneSet or Advanced StatefulSet',
  usage:
    'kubectl kruise scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME)',
  long: `Set a new size for a CloneSet or Advanced StatefulSet.

 Scale also allows users to specify one or more preconditions for the scale action.

 If --current-replicas or --resource-version is specified, it is validated before the scale is attempted, and it is guaranteed that the precondition holds true when the scale is sent to the server.

Examples:
  # Scale a CloneSet named 'foo' to 3
  kubectl kruise scale --replicas=3 cloneset/foo

  # If the CloneSet named foo's current size is 2, scale it to 3
  kubectl kruise scale --current-replicas=2 --replicas=3 cloneset/foo

  # Scale the Advanced StatefulSet named 'bar' to 5
  kubectl kruise scale --replicas=5 asts/bar`,
  flags: [
    { name: 'replicas', type: 'int', required: true, usage: 'The new desired number of replicas. Required.' },
    {
      name: 'current-replicas',
      type: 'int',
      default: -1,
      usage:
        'Precondition for current size. Requires that the current size of the resource match this value in order to scale. -1 (default) for no condition.',
    },
    {
      name: 'resource-version',
      type: 'string',
      usage:
        'Precondition for resource version. Requires that the current resource version match this value in order to scale.',
    },
    ALL_FLAG,
    SELECTOR_FLAG,
    DRY_RUN_FLAG,
    FILENAME_FLAG,
    OUTPUT_FLAG,
  ],
  async run(ctx) {
    const replicas = Number(ctx.flags.replicas);
    if (replicas < 0)
      throw new Error('The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0');
    if (Number(ctx.flags['current-replicas']) < -1)
      throw new Error('The --current-replicas must specify an integer of -1 or greater');
    const strategy = dryRunOf(ctx);
    checkOutputFormat(ctx);
    const targets = await resolveTargets(ctx, ctx.args);
    for (const t of targets) {
      if (!t.kind.scalable) throw new Error(`cannot scale ${targetName(t)}`);
      if (strategy !== 'client') {
        if (ctx.given.has('current-replicas') || ctx.given.has('resource-version'))
          await scaleWithPreconditions(ctx, t, replicas, strategy === 'server');
        else
          await ctx
            .client()
            .mergePatch(t.kind.resource, t.namespace, t.name, { spec: { replicas } }, 'scale', {
              dryRun: strategy === 'server',
            });
      }
      if (!ctx.flags.output) {
        ctx.out(`${targetName(t)} scaled${dryRunSuffix(strategy)}\n`);
        continue;
      }
      // What -o prints: the object as stored after the write, or (under a dry run) as it would be.
      const stored =
        (strategy !== 'none' && t.object) || (await ctx.client().get(t.kind.resource, t.namespace, t.name));
      const shown = strategy === 'none' ? stored : { ...stored, spec: { ...stored.spec, replicas } };
      printObject(ctx, shown, 'scaled', dryRunSuffix(strategy));
    }
  },
};
