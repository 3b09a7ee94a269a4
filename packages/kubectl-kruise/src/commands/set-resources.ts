import { ALL_FLAG, type Command, DRY_RUN_FLAG, dryRunOf, dryRunSuffix, SELECTOR_FLAG } from '../command.ts';
import { checkLocal, FILENAME_FLAG, LOCAL_FLAG } from '../filenames.ts';
import { POSSIBLE_RESOURCES } from '../kinds.ts';
import { checkOutputFormat, OUTPUT_FLAG, printObject } from '../print-object.ts';
import { resolveTargets } from '../targets.ts';
import { editTemplate, matchingContainers } from '../template-patch.ts';

const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

/** `cpu=100m,memory=256Mi` as a resource list, with kubectl's checks. */
function resourceList(spec: string): Record<string, string> {
  const list: Record<string, string> = {};
  for (const item of spec.split(',').filter(Boolean)) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new Error(`invalid resource specification: "${item}"`);
    const [name, value] = [item.slice(0, eq), item.slice(eq + 1)];
    if (!QUANTITY.test(value))
      throw new Error(
        `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      );
    list[name] = value;
  }
  return list;
}

/** `kubectl kruise set resources`: sets container requests and limits of a workload's pod template. */
export const setResources: Command = {
  path: 'set resources',
  short: 'Update resource requests/limits on objects with pod templates',
  usage: 'kubectl kruise set resources (-f FILENAME | TYPE NAME) ([--limits=LIMITS & --requests=REQUESTS]',
  long: `Specify compute resource requirements (CPU, memory) for any resource that defines a pod template.

 ${POSSIBLE_RESOURCES}

Examples:
  # Set the CloneSet's nginx container CPU limit to "200m" and memory to "512Mi"
  kubectl kruise set resources cloneset sample -c=nginx --limits=cpu=200m,memory=512Mi

  # Set the resource request and limits for all containers in nginx
  kubectl kruise set resources cloneset sample --limits=cpu=200m,memory=512Mi --requests=cpu=100m,memory=256Mi`,
  flags: [
    {
      name: 'containers',
      short: 'c',
      type: 'string',
      default: '*',
      usage:
        'The names of containers in the selected pod templates to change, all containers are selected by default - may use wildcards',
    },
    {
      name: 'limits',
      type: 'string',
      usage:
        "The resource requirement requests for this container.  For example, 'cpu=100m,memory=256Mi'.  Note that server side components may assign requests depending on the server configuration, such as limit ranges.",
    },
    {
      name: 'requests',
      type: 'string',
      usage:
        "The resource requirement requests for this container.  For example, 'cpu=100m,memory=256Mi'.  Note that server side components may assign requests depending on the server configuration, such as limit ranges.",
    },
    ALL_FLAG,
    SELECTOR_FLAG,
    DRY_RUN_FLAG,
    FILENAME_FLAG,
    LOCAL_FLAG,
    OUTPUT_FLAG,
  ],
  async run(ctx) {
    const limitsText = String(ctx.flags.limits ?? '');
    const requestsText = String(ctx.flags.requests ?? '');
    if (ctx.flags.all === true && ctx.flags.selector)
      throw new Error('cannot set --all and --selector at the same time');
    if (!limitsText && !requestsText)
      throw new Error(
        'you must specify an update to requests or limits (in the form of --requests/--limits)',
      );
    const limits = resourceList(limitsText);
    const requests = resourceList(requestsText);
    const glob = String(ctx.flags.containers);
    const strategy = dryRunOf(ctx);
    checkOutputFormat(ctx);
    checkLocal(ctx, strategy);
    for (const target of await resolveTargets(ctx, ctx.args)) {
      const { changed, after } = await editTemplate(
        ctx,
        target,
        (template) => {
          const containers = matchingContainers(template, glob);
          if (!containers.length) throw new Error(`unable to find container named ${glob}`);
          for (const c of containers) {
            const resources = { ...(c.resources ?? {}) };
            if (Object.keys(limits).length) resources.limits = { ...(resources.limits ?? {}), ...limits };
            if (Object.keys(requests).length)
              resources.requests = { ...(resources.requests ?? {}), ...requests };
            c.resources = resources;
          }
        },
        strategy,
      );
      if (changed) printObject(ctx, after, 'resource requirements updated', dryRunSuffix(strategy));
    }
  },
};
