import { ALL_FLAG, type Command, DRY_RUN_FLAG, dryRunOf, dryRunSuffix, SELECTOR_FLAG } from '../command.ts';
import { checkLocal, FILENAME_FLAG, filenamesOf, LOCAL_FLAG } from '../filenames.ts';
import { parsePairs, resourcesAndPairs } from '../pairs.ts';
import { checkOutputFormat, OUTPUT_FLAG, printObject } from '../print-object.ts';
import { resolveTargets } from '../targets.ts';
import { editTemplate, matchingContainers, templateOf } from '../template-patch.ts';

type EnvVar = { name: string; value?: string; valueFrom?: Record<string, any> };

/** Where a `valueFrom` comes from, as `kubectl set env --list` prints it. */
function describeSource(env: EnvVar): string {
  const from = env.valueFrom ?? {};
  if (from.fieldRef) return `field path ${from.fieldRef.fieldPath}`;
  if (from.resourceFieldRef) return `resource ${from.resourceFieldRef.resource}`;
  if (from.configMapKeyRef) return `configmap ${from.configMapKeyRef.name}, key ${from.configMapKeyRef.key}`;
  if (from.secretKeyRef) return `secret ${from.secretKeyRef.name}, key ${from.secretKeyRef.key}`;
  return 'an unknown source';
}

/** `kubectl kruise set env`: sets or removes environment variables of a workload's containers. */
export const setEnv: Command = {
  path: 'set env',
  short: 'Update environment variables on a pod template',
  usage: 'kubectl kruise set env RESOURCE/NAME KEY_1=VAL_1 ... KEY_N=VAL_N',
  long: `Update environment variables on a pod template. Environment changes recreate the pods (they are never applied in place).

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
    if (!list && set.size === 0 && remove.length === 0)
      throw new Error('at least one environment variable must be provided');
    const glob = String(ctx.flags.containers);
    const targets = await resolveTargets(ctx, resources);
    if (list) {
      for (const target of targets) {
        const obj =
          target.object ?? (await ctx.client().get(target.kind.resource, target.namespace, target.name));
        for (const c of matchingContainers(templateOf(target.kind, obj), glob)) {
          ctx.out(`# ${target.kind.resource.plural} ${target.name}, container ${c.name}\n`);
          for (const env of (c.env ?? []) as EnvVar[])
            ctx.out(
              env.valueFrom
                ? `# ${env.name} from ${describeSource(env)}\n`
                : `${env.name}=${env.value ?? ''}\n`,
            );
        }
      }
      return;
    }
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
            for (const [name, value] of set) {
              const at = env.findIndex((e) => e.name === name);
              if (at < 0) env.push({ name, value });
              else if (ctx.flags.overwrite !== true)
                throw new Error(
                  `'${name}' already has a value (${env[at]?.value ?? ''}), and --overwrite is false`,
                );
              else env[at] = { name, value };
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
