import { type Command, DRY_RUN_FLAG, dryRunOf, dryRunSuffix } from '../command.ts';
import { UsageError } from '../errors.ts';
import { FILENAME_FLAG } from '../filenames.ts';
import { checkOutputFormat, OUTPUT_FLAG, printObject } from '../print-object.ts';
import { resolveTargets } from '../targets.ts';
import { editTemplate } from '../template-patch.ts';
import { RESOURCE_REQUIRED } from './rollout-pause.ts';
import { IN_PLACE_RESTART_FLAGS, refuseInPlaceFlags, runInPlaceRestart } from './rollout-restart-in-place.ts';

/** The variable kruise-tools stamps into every container to restart a Kruise workload. */
export const RESTARTED_ENV = 'RESTARTED_AT';

/**
 * `kubectl kruise rollout restart`: kruise-tools' restart of a Kruise workload. It sets
 * `RESTARTED_AT=<now, RFC 3339>` in every container of the pod template: an env change is never
 * applied in place, so every pod is recreated (a template annotation alone would be patched onto
 * the pods in place by an in-place update strategy and restart nothing; ADR 0037).
 */
export const rolloutRestart: Command = {
  path: 'rollout restart',
  short: 'Restart a resource',
  usage: 'kubectl kruise rollout restart RESOURCE [--in-place]',
  long: `Restart a resource.

 Resource rollout will be restarted: every pod is recreated.

Examples:
  # Restart a CloneSet
  kubectl kruise rollout restart cloneset/abc

  # Restart the containers of every pod of a CloneSet in place, within maxUnavailable and PodDisruptionBudgets
  kubectl kruise rollout restart --in-place cloneset/abc --reason="rotate certificates"

  # Restart an Advanced StatefulSet
  kubectl kruise rollout restart asts/abc`,
  flags: [
    {
      name: 'selector',
      short: 'l',
      type: 'string',
      usage:
        "Selector (label query) to filter on, supports '=', '==', and '!='.(e.g. -l key1=value1,key2=value2).",
    },
    ...IN_PLACE_RESTART_FLAGS,
    DRY_RUN_FLAG,
    FILENAME_FLAG,
    OUTPUT_FLAG,
  ],
  async run(ctx) {
    if (ctx.flags['in-place'] === true) {
      const printing = ['dry-run', 'output'].find((n) => ctx.given.has(n));
      if (printing) throw new UsageError(`--${printing} cannot be used with --in-place`);
      return runInPlaceRestart(ctx);
    }
    refuseInPlaceFlags(ctx);
    const strategy = dryRunOf(ctx);
    checkOutputFormat(ctx);
    const now = ctx
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    for (const target of await resolveTargets(ctx, ctx.args, RESOURCE_REQUIRED)) {
      const { after } = await editTemplate(
        ctx,
        target,
        (template) => {
          for (const c of template.spec?.containers ?? []) {
            const env: { name: string; value?: string }[] = [...(c.env ?? [])];
            const at = env.findIndex((e) => e.name === RESTARTED_ENV);
            if (at < 0) env.push({ name: RESTARTED_ENV, value: now });
            else env[at] = { name: RESTARTED_ENV, value: now };
            c.env = env;
          }
        },
        strategy,
      );
      printObject(ctx, after, 'restarted', dryRunSuffix(strategy));
    }
  },
};
