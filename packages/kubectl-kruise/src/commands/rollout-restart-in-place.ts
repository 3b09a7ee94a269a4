import type { CommandContext } from '../command.ts';
import { CRR_DEFAULTS } from '../crr/defaults.ts';
import { UsageError } from '../errors.ts';
import type { FlagSpec } from '../flags.ts';
import { restartInPlace } from '../restart-in-place/runner.ts';
import { RESTARTABLE_KINDS } from '../restart-in-place/workload.ts';
import { resolveTargets, targetName } from '../targets.ts';
import { RESOURCE_REQUIRED } from './rollout-pause.ts';

/** The default reason recorded on the workload and its pods. */
const DEFAULT_REASON = 'kubectl kruise rollout restart --in-place';

/** The flags `rollout restart` takes for an in-place restart. */
export const IN_PLACE_RESTART_FLAGS: readonly FlagSpec[] = [
  {
    name: 'in-place',
    type: 'bool',
    usage:
      "Restart every pod's containers in place with ContainerRecreateRequests (pods keep their UID, IP and volumes), never more at once than the workload's maxUnavailable, the PodDisruptionBudgets selecting its pods and the PodUnavailableBudgets covering them allow (each pod takes one disruption out of its PodUnavailableBudget). A re-run resumes an interrupted restart.",
  },
  {
    name: 'reason',
    type: 'string',
    default: DEFAULT_REASON,
    usage: 'With --in-place: why, recorded in the apps.kruise.io/in-place-restart(ed) annotations.',
  },
  {
    name: 'unready-grace-period-seconds',
    type: 'int',
    default: CRR_DEFAULTS.strategy.unreadyGracePeriodSeconds,
    usage: 'With --in-place: how long each pod is marked not ready before its containers stop.',
  },
  {
    name: 'min-started-seconds',
    type: 'int',
    default: CRR_DEFAULTS.strategy.minStartedSeconds,
    usage: 'With --in-place: how long a restarted container must run (and be ready) to count as restarted.',
  },
  {
    name: 'active-deadline-seconds',
    type: 'int',
    default: CRR_DEFAULTS.activeDeadlineSeconds,
    usage: "With --in-place: how long one pod's restart may take before it counts as failed.",
  },
  {
    name: 'timeout',
    type: 'duration',
    usage: 'With --in-place: give up after this long (e.g. 10m); zero means never.',
  },
];

/** A recreating restart takes none of the in-place flags: naming one without `--in-place` is a usage error. */
export function refuseInPlaceFlags(ctx: CommandContext): void {
  const given = IN_PLACE_RESTART_FLAGS.map((f) => f.name).filter((n) => n !== 'in-place' && ctx.given.has(n));
  if (given.length) throw new UsageError(`--${given[0]} can only be used with --in-place`);
}

/**
 * `kubectl kruise rollout restart --in-place TYPE/NAME`: the pods' containers restart in place,
 * batch by batch, with a progress line per pod; exits non-zero when a request fails.
 */
export async function runInPlaceRestart(ctx: CommandContext): Promise<void> {
  const timeoutMs = Number(ctx.flags.timeout);
  const targets = await resolveTargets(ctx, ctx.args, RESOURCE_REQUIRED);
  for (const t of targets) {
    const kind = RESTARTABLE_KINDS[t.kind.kind];
    if (!kind) throw new Error(`${t.kind.kind} cannot be restarted in place`);
    try {
      await restartInPlace(ctx.client(), {
        kind,
        resource: t.kind.resource,
        what: targetName(t),
        namespace: t.namespace,
        name: t.name,
        reason: String(ctx.flags.reason || DEFAULT_REASON),
        timing: {
          unreadyGracePeriodSeconds: Number(ctx.flags['unready-grace-period-seconds']),
          minStartedSeconds: Number(ctx.flags['min-started-seconds']),
          activeDeadlineSeconds: Number(ctx.flags['active-deadline-seconds']),
        },
        out: (line) => ctx.out(`${line}\n`),
        timeoutMs,
        now: ctx.now,
        signal: ctx.signal,
      });
    } catch (err) {
      if (!ctx.signal.aborted) throw err;
      throw new Error(
        `interrupted: the in-place restart of ${targetName(t)} is not complete; run the command again to resume it`,
      );
    }
  }
}
