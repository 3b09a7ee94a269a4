import { ALL_FLAG, type Command, DRY_RUN_FLAG, dryRunOf, dryRunSuffix, SELECTOR_FLAG } from '../command.ts';
import { checkLocal, FILENAME_FLAG, filenamesOf, LOCAL_FLAG } from '../filenames.ts';
import { POSSIBLE_RESOURCES } from '../kinds.ts';
import { parsePairs, resourcesAndPairs } from '../pairs.ts';
import { checkOutputFormat, OUTPUT_FLAG, printObject } from '../print-object.ts';
import { resolveTargets } from '../targets.ts';
import { editTemplate, matchingContainers } from '../template-patch.ts';

/**
 * `kubectl kruise set image`: changes container images of a workload's pod template with a JSON
 * Patch of just those fields (so an image change stays an in-place update; ADR 0037).
 */
export const setImage: Command = {
  path: 'set image',
  short: 'Update image of a pod template',
  usage:
    'kubectl kruise set image (-f FILENAME | TYPE NAME) CONTAINER_NAME_1=CONTAINER_IMAGE_1 ... CONTAINER_NAME_N=CONTAINER_IMAGE_N',
  long: `Update existing container image(s) of resources.

 ${POSSIBLE_RESOURCES}

Examples:
  # Set a CloneSet's nginx container image to 'nginx:1.9.1', and its busybox container image to 'busybox'
  kubectl kruise set image cloneset/sample busybox=busybox nginx=nginx:1.9.1

  # Set the image of the Advanced StatefulSet sample's nginx container
  kubectl kruise set image asts/sample nginx=nginx:1.9.1

  # Update image of all containers of all CloneSets in the namespace
  kubectl kruise set image cloneset --all '*'=nginx:1.9.1`,
  flags: [ALL_FLAG, SELECTOR_FLAG, DRY_RUN_FLAG, FILENAME_FLAG, LOCAL_FLAG, OUTPUT_FLAG],
  async run(ctx) {
    const { resources, pairs } = resourcesAndPairs(ctx.args, 'image');
    const images = parsePairs(pairs, 'image', false).set;
    const problems: string[] = [];
    if (ctx.flags.all === true && ctx.flags.selector)
      problems.push('cannot set --all and --selector at the same time');
    if (resources.length < 1 && !filenamesOf(ctx).length)
      problems.push('one or more resources must be specified as <resource> <name> or <resource>/<name>');
    if (images.size < 1) problems.push('at least one image update is required');
    else if (images.size > 1 && images.has('*'))
      problems.push(
        'all containers are already specified by *, but saw more than one container_name=container_image pairs',
      );
    if (problems.length) throw new Error(problems.join(', '));
    const strategy = dryRunOf(ctx);
    checkOutputFormat(ctx);
    checkLocal(ctx, strategy);
    const errors: string[] = [];
    for (const target of await resolveTargets(ctx, resources)) {
      const { changed, after } = await editTemplate(
        ctx,
        target,
        (template) => {
          for (const [name, image] of images) {
            const found = matchingContainers(template, name);
            if (!found.length) errors.push(`error: unable to find container named "${name}"`);
            for (const c of found) c.image = image;
          }
        },
        strategy,
      );
      if (changed) printObject(ctx, after, 'image updated', dryRunSuffix(strategy));
    }
    if (errors.length) throw new Error(errors.join('\n'));
  },
};
