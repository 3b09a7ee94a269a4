import {
  ALL_FLAG,
  type Command,
  type CommandContext,
  DRY_RUN_FLAG,
  dryRunOf,
  dryRunSuffix,
  SELECTOR_FLAG,
} from '../command.ts';
import { type EnvVar, envFrom, type ResourceStore, resolveEnvValue } from '../env-from.ts';
import { checkLocal, FILENAME_FLAG, filenamesOf, LOCAL_FLAG } from '../filenames.ts';
import { POSSIBLE_RESOURCES } from '../kinds.ts';
import { parsePairs, resourcesAndPairs } from '../pairs.ts';
import { checkOutputFormat, OUTPUT_FLAG, printObject } from '../print-object.ts';
import { resolveTargets, type Target } from '../targets.ts';
import { editTemplate, matchingContainers, templateOf } from '../template-patch.ts';

/** Where a `valueFrom` comes from, as `kubectl set env --list` prints it. */
function describeSource(env: EnvVar): string {
  const from = env.valueFrom ?? {};
  if (from.fieldRef) return `field path ${from.fieldRef.fieldPath}`;
  if (from.resourceFieldRef) return `resource ${from.resourceFieldRef.resource}`;
  if (from.configMapKeyRef) return `configmap ${from.configMapKeyRef.name}, key ${from.configMapKeyRef.key}`;
  if (from.secretKeyRef) return `secret ${from.secretKeyRef.name}, key ${from.secretKeyRef.key}`;
  return 'an unknown source';
}

/**
 * `set env --list`: each matching container's variables, `valueFrom` ones as their source, or with
 * `--resolve` their values (what cannot be resolved is listed as its source, its error printed to
 * standard error, and the run fails as kubectl's does).
 */
async function listEnv(ctx: CommandContext, targets: Target[], glob: string): Promise<void> {
  const store: ResourceStore = new Map();
  const failures = new Map<string, string[]>();
  for (const target of targets) {
    const obj =
      target.object ?? (await ctx.client().get(target.kind.resource, target.namespace, target.name));
    for (const c of matchingContainers(templateOf(target.kind, obj), glob)) {
      ctx.out(`# ${target.kind.resource.plural} ${target.name}, container ${c.name}\n`);
      for (const env of (c.env ?? []) as EnvVar[]) {
        if (!env.valueFrom) {
          ctx.out(`${env.name}=${env.value ?? ''}\n`);
          continue;
        }
        if (ctx.flags.resolve === true) {
          try {
            ctx.out(`${env.name}=${await resolveEnvValue(ctx, store, env.valueFrom, obj)}\n`);
            continue;
          } catch (err) {
            const message = (err as Error).message;
            failures.set(message, [...(failures.get(message) ?? []), env.name]);
          }
        }
        ctx.out(`# ${env.name} from ${describeSource(env)}\n`);
      }
    }
  }
  if (!failures.size) return;
  const lines = [...failures].map(
    ([err, names]) => `error retrieving reference for ${names.sort().join(', ')}: ${err}`,
  );
  for (const line of lines.sort()) ctx.err(`${line}\n`);
  throw new Error('failed to retrieve valueFrom references');
}

/** `kubectl kruise set env`: sets or removes environment variables of a workload's containers. */
export const setEnv: Command = {
  path: 'set env',
  short: 'Update environment variables on a pod template',
  usage: 'kubectl kruise set env RESOURCE/NAME KEY_1=VAL_1 ... KEY_N=VAL_N',
  long: `Update environment variables on a pod template. Environment changes recreate the pods (they are never applied in place).

 ${POSSIBLE_RESOURCES}

Examples:
  # Update CloneSet 'sample' with a new environment variable
  kubectl kruise set env cloneset/sample STORAGE_DIR=/local

  # List the environment variables defined on a CloneSet 'sample'
  kubectl kruise set env cloneset/sample --list

  # Remove the environment variable ENV from container 'c1' in all CloneSets
  kubectl kruise set env clonesets --all --containers="c1" ENV-`,
  flags: [
    {
      name: 'containers',
      short: 'c',
      type: 'string',
      default: '*',
      usage: 'The names of containers in the selected pod templates to change - may use wildcards',
    },
    {
      name: 'env',
      short: 'e',
      type: 'strings',
      usage: 'Specify a key-value pair for an environment variable to set into each container.',
    },
    {
      name: 'list',
      type: 'bool',
      usage: 'If true, display the environment and any changes in the standard format.',
    },
    {
      name: 'overwrite',
      type: 'bool',
      default: true,
      usage:
        'If true, allow environment to be overwritten, otherwise reject updates that overwrite existing environment.',
    },
    {
      name: 'from',
      type: 'string',
      usage: 'The name of a resource from which to inject environment variables',
    },
    { name: 'prefix', type: 'string', usage: 'Prefix to append to variable names' },
    {
      name: 'keys',
      type: 'strings',
      usage: 'Comma-separated list of keys to import from specified resource',
    },
    {
      name: 'resolve',
      type: 'bool',
      usage: 'If true, show secret or configmap references when listing variables',
    },
    ALL_FLAG,
    SELECTOR_FLAG,
    DRY_RUN_FLAG,
    FILENAME_FLAG,
    LOCAL_FLAG,
    OUTPUT_FLAG,
  ],
  async run(ctx) {
    const { resources, pairs } = resourcesAndPairs(ctx.args, 'environment');
    const flagged = (ctx.flags.env as string[]).filter(Boolean);
    const { set, remove } = parsePairs([...flagged, ...pairs], 'environment', true);
    if (resources.length < 1 && !filenamesOf(ctx).length)
      throw new Error('one or more resources must be specified as <resource> <name> or <resource>/<name>');
    const list = ctx.flags.list === true;
    const from = String(ctx.flags.from ?? '');
    const keys = (ctx.flags.keys as string[]).filter(Boolean);
    if (list && ctx.flags.output) throw new Error('--list and --output may not be specified together');
    if (keys.length && !from)
      throw new Error('when specifying --keys, a configmap or secret must be provided with --from');
    if (!list && set.size === 0 && remove.length === 0 && !from)
      throw new Error('at least one environment variable must be provided');
    const glob = String(ctx.flags.containers);
    const targets = await resolveTargets(ctx, resources);
    if (list) return listEnv(ctx, targets, glob);
    const prefix = String(ctx.flags.prefix ?? '');
    const updates: EnvVar[] = [
      ...[...set].map(([name, value]) => ({ name, value })),
      ...(from ? await envFrom(ctx, from, keys) : []),
    ].map((e) => ({ ...e, name: `${prefix}${e.name}` }));
    const strategy = dryRunOf(ctx);
    checkOutputFormat(ctx);
    checkLocal(ctx, strategy);
    for (const target of targets) {
      const { changed, after } = await editTemplate(
        ctx,
        target,
        (template) => {
          const containers = matchingContainers(template, glob);
          if (!containers.length) throw new Error(`unable to find container named ${glob}`);
          for (const c of containers) {
            let env: EnvVar[] = [...((c.env ?? []) as EnvVar[])];
            for (const update of updates) {
              const at = env.findIndex((e) => e.name === update.name);
              const current = env[at];
              if (!current) env.push(update);
              else if (ctx.flags.overwrite !== true && current.value !== update.value)
                throw new Error(
                  `'${current.name}' already has a value (${current.value ?? ''}), and --overwrite is false`,
                );
              else env[at] = update;
            }
            env = env.filter((e) => !remove.includes(e.name));
            if (env.length) c.env = env;
            else delete c.env;
          }
        },
        strategy,
      );
      if (changed) printObject(ctx, after, 'env updated', dryRunSuffix(strategy));
    }
  },
};
