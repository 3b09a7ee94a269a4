import { ALL_FLAG, type Command, DRY_RUN_FLAG, dryRunOf, dryRunSuffix } from '../command.ts';
import { checkLocal, FILENAME_FLAG, LOCAL_FLAG } from '../filenames.ts';
import { checkOutputFormat, OUTPUT_FLAG, printObject } from '../print-object.ts';
import { resolveTargets } from '../targets.ts';
import { editTemplate } from '../template-patch.ts';

/** `kubectl kruise set serviceaccount`: sets the service account of a workload's pod template. */
export const setServiceAccount: Command = {
  path: 'set serviceaccount',
  short: 'Update the service account of a resource',
  usage: 'kubectl kruise set serviceaccount (-f FILENAME | TYPE NAME) SERVICE_ACCOUNT',
  long: `Update the service account of pod template resources.

Examples:
  # Set CloneSet sample's service account to serviceaccount1
  kubectl kruise set serviceaccount cloneset sample serviceaccount1`,
  flags: [ALL_FLAG, DRY_RUN_FLAG, FILENAME_FLAG, LOCAL_FLAG, OUTPUT_FLAG],
  async run(ctx) {
    if (ctx.args.length === 0) throw new Error('serviceaccount is required');
    const account = ctx.args[ctx.args.length - 1] as string;
    const strategy = dryRunOf(ctx);
    checkOutputFormat(ctx);
    checkLocal(ctx, strategy);
    for (const target of await resolveTargets(ctx, ctx.args.slice(0, -1))) {
      const { changed, after } = await editTemplate(
        ctx,
        target,
        (template) => {
          template.spec = { ...(template.spec ?? {}), serviceAccountName: account };
        },
        strategy,
      );
      if (changed) printObject(ctx, after, 'serviceaccount updated', dryRunSuffix(strategy));
    }
  },
};
