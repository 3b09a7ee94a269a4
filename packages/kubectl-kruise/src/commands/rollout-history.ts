import type { Command } from '../command.ts';
import { describePodTemplate } from '../describe-template.ts';
import { FILENAME_FLAG, filenamesOf } from '../filenames.ts';
import { historyOf, revisionTemplate } from '../history.ts';
import { resolveTargets, targetName } from '../targets.ts';
import { RESOURCE_REQUIRED } from './rollout-pause.ts';

const CHANGE_CAUSE = 'kubernetes.io/change-cause';

/** Rows padded as Go's tabwriter with padding 2. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 2))).join(''))
    .join('\n');
}

/** `kubectl kruise rollout history`: the workload's revisions, or one revision's pod template. */
export const rolloutHistory: Command = {
  path: 'rollout history',
  short: 'View rollout history',
  usage: 'kubectl kruise rollout history (TYPE NAME | TYPE/NAME) [flags]',
  long: `View previous rollout revisions and configurations.

Examples:
  # View the rollout history of a CloneSet
  kubectl kruise rollout history cloneset/abc

  # View the details of CloneSet revision 3
  kubectl kruise rollout history cloneset/abc --revision=3

  # View the rollout history of an Advanced StatefulSet
  kubectl kruise rollout history asts/abc`,
  flags: [
    FILENAME_FLAG,
    {
      name: 'revision',
      type: 'int',
      usage: 'See the details, including podTemplate of the revision specified',
    },
  ],
  async run(ctx) {
    if (ctx.args.length === 0 && !filenamesOf(ctx).length) throw new Error(RESOURCE_REQUIRED);
    const revision = Number(ctx.flags.revision);
    if (revision < 0) throw new Error(`revision must be a positive integer: ${revision}`);
    for (const target of await resolveTargets(ctx, ctx.args, RESOURCE_REQUIRED)) {
      const { revisions } = await historyOf(ctx, target);
      let info: string;
      if (revisions.length === 0) info = 'No rollout history found.';
      else if (revision > 0) {
        const found = revisions.find((r) => Number(r.revision) === revision);
        if (!found) throw new Error('unable to find the specified revision');
        info = describePodTemplate(revisionTemplate(found));
      } else {
        const rows = [['REVISION', 'CHANGE-CAUSE']];
        for (const r of revisions)
          rows.push([String(r.revision), r.metadata?.annotations?.[CHANGE_CAUSE] || '<none>']);
        info = `${table(rows)}\n`;
      }
      ctx.out(`${targetName(target)} ${revision > 0 ? `with revision #${revision}` : ''}\n${info}\n`);
    }
  },
};
