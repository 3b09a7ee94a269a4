import type { Command } from '../command.ts';
import { FILENAME_FLAG, filenamesOf } from '../filenames.ts';
import type { RolloutStatus } from '../status.ts';
import { resolveTargets } from '../targets.ts';
import { followObject } from '../watch.ts';
import { RESOURCE_REQUIRED } from './rollout-pause.ts';

/**
 * `kubectl kruise rollout status`: prints the rollout's state as kruise-tools' status viewer words
 * it, and with `--watch` (the default) follows the object until the rollout is done.
 */
export const rolloutStatus: Command = {
  path: 'rollout status',
  short: 'Show the status of the rollout',
  usage: 'kubectl kruise rollout status (TYPE NAME | TYPE/NAME) [flags]',
  long: `Show the status of the rollout.

 By default 'rollout status' will watch the status of the latest rollout until it's done. If you don't want to wait for the rollout to finish then you can use --watch=false.

Examples:
  # Watch the rollout status of a CloneSet
  kubectl kruise rollout status cloneset/sample

  # Watch the rollout status of an Advanced StatefulSet (plain "sts" is the built-in StatefulSet)
  kubectl kruise rollout status asts/sample`,
  flags: [
    FILENAME_FLAG,
    {
      name: 'watch',
      short: 'w',
      type: 'bool',
      default: true,
      usage: "Watch the status of the rollout until it's done.",
    },
    {
      name: 'revision',
      type: 'int',
      usage: 'Pin to a specific revision for showing its status. Defaults to 0 (last revision).',
    },
    {
      name: 'timeout',
      type: 'duration',
      usage:
        'The length of time to wait before ending watch, zero means never. Any other values should contain a corresponding time unit (e.g. 1s, 2m, 3h).',
    },
  ],
  async run(ctx) {
    if (ctx.args.length === 0 && !filenamesOf(ctx).length) throw new Error(RESOURCE_REQUIRED);
    const revision = Number(ctx.flags.revision);
    if (revision < 0) throw new Error(`revision must be a positive integer: ${revision}`);
    const targets = await resolveTargets(ctx, ctx.args, RESOURCE_REQUIRED);
    if (targets.length !== 1)
      throw new Error(
        `rollout status is only supported on individual resources and resource collections - ${targets.length} resources were found`,
      );
    const target = targets[0]!;
    let last = '';
    let refused: Error | undefined;
    await followObject(
      ctx,
      target,
      (obj) => {
        let reading: RolloutStatus;
        try {
          reading = target.kind.rolloutStatus(obj);
        } catch (err) {
          refused = err as Error; // the viewer's refusal ends the command (kubectl's error)
          return true;
        }
        if (reading.message !== last) ctx.out(`${reading.message}\n`);
        last = reading.message;
        return reading.done || ctx.flags.watch !== true;
      },
      Number(ctx.flags.timeout),
    );
    if (refused) throw refused;
  },
};
