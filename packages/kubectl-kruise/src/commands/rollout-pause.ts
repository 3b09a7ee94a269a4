import type { Command, CommandContext } from '../command.ts';
import { FILENAME_FLAG } from '../filenames.ts';
import { checkOutputFormat, OUTPUT_FLAG, printObject } from '../print-object.ts';
import { resolveTargets } from '../targets.ts';
import { readPath } from '../template-patch.ts';

/** kubectl's message when a rollout command gets no resource. */
export const RESOURCE_REQUIRED = 'required resource not specified';

/** A merge patch setting the value at JSON path segments. */
function nested(segments: readonly string[], value: unknown): Record<string, unknown> {
  return segments.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

/** Sets the workload's update-strategy `paused` switch; shared by `rollout pause` and `rollout resume`. */
async function setPaused(ctx: CommandContext, paused: boolean): Promise<void> {
  checkOutputFormat(ctx);
  const errors: string[] = [];
  for (const t of await resolveTargets(ctx, ctx.args, RESOURCE_REQUIRED)) {
    const path = t.kind.pausedPath;
    const resource = `${t.kind.resource.plural}.${t.kind.resource.group}`;
    if (!path) {
      errors.push(`error: ${resource} "${t.name}" ${paused ? 'pausing' : 'resuming'} is not supported`);
      continue;
    }
    const obj = await ctx.client().get(t.kind.resource, t.namespace, t.name);
    if (readPath(obj, path) === true && paused) {
      errors.push(`error: ${resource} "${t.name}" is already paused`);
      continue;
    }
    if (readPath(obj, path) !== true && !paused) {
      errors.push(`error: ${resource} "${t.name}" is not paused`);
      continue;
    }
    const after = await ctx.client().mergePatch(t.kind.resource, t.namespace, t.name, nested(path, paused));
    printObject(ctx, after, paused ? 'paused' : 'resumed');
  }
  if (errors.length) throw new Error(errors.join('\n'));
}

/** `kubectl kruise rollout pause`: sets the workload's paused switch (CloneSet `spec.updateStrategy.paused`, Advanced StatefulSet `spec.updateStrategy.rollingUpdate.paused`). */
export const rolloutPause: Command = {
  path: 'rollout pause',
  short: 'Mark the provided resource as paused',
  usage: 'kubectl kruise rollout pause RESOURCE',
  long: `Mark the provided resource as paused.

 Paused resources will not be reconciled by a controller. Use "kubectl kruise rollout resume" to resume a paused resource.

Examples:
  # Mark the CloneSet sample as paused
  kubectl kruise rollout pause cloneset/sample

  # Pause the rolling update of the Advanced StatefulSet sample
  kubectl kruise rollout pause asts/sample`,
  flags: [FILENAME_FLAG, OUTPUT_FLAG],
  run: (ctx) => setPaused(ctx, true),
};

/** `kubectl kruise rollout resume`: clears the workload's `spec.updateStrategy.paused`. */
export const rolloutResume: Command = {
  path: 'rollout resume',
  short: 'Resume a paused resource',
  usage: 'kubectl kruise rollout resume RESOURCE',
  long: `Resume a paused resource.

Examples:
  # Resume an already paused CloneSet
  kubectl kruise rollout resume cloneset/sample`,
  flags: [FILENAME_FLAG, OUTPUT_FLAG],
  run: (ctx) => setPaused(ctx, false),
};
