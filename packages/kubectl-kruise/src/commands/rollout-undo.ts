import type { KubeObject } from '@kruise/runtime/kube/client';
import { objectPath } from '@kruise/runtime/kube/resources';
import { type Command, DRY_RUN_FLAG, dryRunOf, dryRunSuffix } from '../command.ts';
import { describePodTemplate } from '../describe-template.ts';
import { FILENAME_FLAG, filenamesOf } from '../filenames.ts';
import { canonical, historyOf, revisionTemplate, sameTemplate } from '../history.ts';
import { checkOutputFormat, OUTPUT_FLAG, printObject } from '../print-object.ts';
import { resolveTargets, targetName } from '../targets.ts';
import {
  type PatchOperation,
  type PodTemplate,
  pointer,
  templateOf,
  templatePatch,
  withTemplate,
} from '../template-patch.ts';
import { RESOURCE_REQUIRED } from './rollout-pause.ts';

/**
 * `kubectl kruise rollout undo`: puts a previous revision's pod template back (the controller then
 * reuses that revision). The template is restored with a JSON Patch of what differs, container by
 * container, so a rollback of an image stays an in-place update.
 */
export const rolloutUndo: Command = {
  path: 'rollout undo',
  short: 'Undo a previous rollout',
  usage: 'kubectl kruise rollout undo (TYPE NAME | TYPE/NAME) [flags]',
  long: `Roll back to a previous rollout.

Examples:
  # Roll back to the previous CloneSet revision
  kubectl kruise rollout undo cloneset/abc

  # Roll back to CloneSet revision 3
  kubectl kruise rollout undo cloneset/abc --to-revision=3

  # Roll back to the previous Advanced StatefulSet revision
  kubectl kruise rollout undo asts/abc`,
  flags: [
    {
      name: 'to-revision',
      type: 'int',
      usage: 'The revision to rollback to. Default to 0 (last revision).',
    },
    DRY_RUN_FLAG,
    FILENAME_FLAG,
    OUTPUT_FLAG,
  ],
  async run(ctx) {
    if (ctx.args.length === 0 && !filenamesOf(ctx).length) throw new Error(RESOURCE_REQUIRED);
    const toRevision = Number(ctx.flags['to-revision']);
    const strategy = dryRunOf(ctx);
    checkOutputFormat(ctx);
    for (const target of await resolveTargets(ctx, ctx.args, RESOURCE_REQUIRED)) {
      if (toRevision < 0) throw new Error(`unable to find specified revision ${toRevision} in history`);
      const { object, revisions } = await historyOf(ctx, target);
      if (toRevision === 0 && revisions.length <= 1) throw new Error('no last revision to roll back to');
      const to =
        toRevision === 0
          ? revisions[revisions.length - 2]
          : revisions.find((r) => Number(r.revision) === toRevision);
      if (!to) throw new Error(`unable to find specified revision ${toRevision} in history`);
      const wanted = revisionTemplate(to);
      if (strategy === 'client' && ctx.flags.output) {
        printObject(ctx, withTemplate(target.kind, object, canonical(wanted) as PodTemplate), 'rolled back');
        continue;
      }
      if (strategy === 'client') {
        ctx.out(`${targetName(target)} will roll back to ${describePodTemplate(wanted)}\n`);
        continue;
      }
      const current = templateOf(target.kind, object);
      if (sameTemplate(current, wanted)) {
        ctx.out(
          `${targetName(target)} skipped rollback (current template already matches revision ${to.revision})\n`,
        );
        continue;
      }
      let ops: PatchOperation[];
      try {
        ops = templatePatch(target.kind, canonical(current) as PodTemplate, canonical(wanted) as PodTemplate);
      } catch {
        ops = [{ op: 'replace', path: pointer(target.kind.templatePath), value: canonical(wanted) }];
      }
      const after = await ctx
        .client()
        .request<KubeObject>('PATCH', objectPath(target.kind.resource, target.namespace, target.name), {
          body: ops,
          contentType: 'application/json-patch+json',
          query: { dryRun: strategy === 'server' ? 'All' : undefined },
        })
        .catch((err: Error) => {
          throw new Error(`failed restoring revision ${to.revision}: ${err.message}`);
        });
      printObject(ctx, after, 'rolled back', dryRunSuffix(strategy));
    }
  },
};
