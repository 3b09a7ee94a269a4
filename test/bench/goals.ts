/**
 * The goals of `pnpm bench`: ONE table, checked by `pnpm bench -- --check`.
 *
 * A key is `<suite>.<figure>`: the part before the first dot is the suite's name in run.ts, and a
 * suite that runs must report every goal of its own (a goal it leaves unmeasured fails the check,
 * so a renamed or dropped figure cannot pass in silence). Figures without a goal need no entry.
 */
export interface Goal {
  /** What the figure is, for the summary. */
  what: string;
  unit: string;
  /** The figure must be at most this … */
  atMost?: number;
  /** … or at least this. */
  atLeast?: number;
  /**
   * Which rounds must meet it: `median` (the default) — the median of the rounds; `every` — each
   * round on its own (a goal on a tail that must hold every time, not on average).
   */
  of?: 'median' | 'every';
}

export const GOALS = {
  'local-node.image-update': {
    what: 'pod spec image change (same-digest tag) to the new container running, as the pod status shows it',
    unit: 's',
    atMost: 1.5,
  },
  'control-plane.writes-per-s': {
    what: 'control-plane creates/s, client-node, 2 client threads, 32 in flight',
    unit: '/s',
    atLeast: 2000,
  },
  'control-plane.apply-vs-merge-patch': {
    what: 'server CPU per server-side apply of a Deployment, as a multiple of a merge patch of the same change',
    unit: 'x',
    atMost: 3,
  },
  'control-plane.scheduling-bindings-per-s': {
    what: 'scheduler bindings/s: 1,000 pending pods onto 10 nodes (uncordoned at once -> every pod bound, by watch)',
    unit: '/s',
    atLeast: 500,
  },
  'control-plane.watch-fanout-p99': {
    what: 'control-plane watch fan-out p99, 50 watchers (write start -> event received)',
    unit: 'ms',
    atMost: 50,
  },
  'manager.fanout-1000': {
    what: 'ImagePullJob fan-out to 1,000 NodeImages: every spec tagged',
    unit: 's',
    atMost: 3,
  },
  'manager.fanout-1000-of-raw': {
    what: 'fan-out write rate at 1,000 nodes as a share of the raw GET+PUT rate',
    unit: '%',
    atLeast: 50,
  },
  'manager.fanout-10000': {
    what: 'ImagePullJob fan-out to 10,000 NodeImages: every spec tagged',
    unit: 's',
    atMost: 10,
  },
  'manager.storm': {
    what: 'reconciles after one tag status change, per job on that tag',
    unit: 'x',
    atMost: 1.05,
  },
  'cloneset.scale-1000-of-raw': {
    what: 'CloneSet scale 0 -> 1,000 on 10 Nodes (bound, not run): pods created per second as a share of raw creates',
    unit: '%',
    atLeast: 50,
  },
  'cloneset.inplace-vs-recreate': {
    what: 'in-place update of 50 running pods (same-digest tag) vs ReCreate of the same 50: time until all updated and ready',
    unit: 'x',
    atMost: 0.5,
  },
  'cloneset.manager-rss': {
    what: 'kruise-manager RSS (built JS), 10 CloneSets x 1,000 pods cached',
    unit: 'MB',
    atMost: 250,
  },
  'cloneset.reconciles-owner': {
    what: 'reconciles of the owning CloneSet per pod status change (exactly 1)',
    unit: 'x',
    atLeast: 1,
    atMost: 1,
    of: 'every',
  },
  'cloneset.reconciles-others': {
    what: 'reconciles of the 9 other CloneSets per pod status change',
    unit: 'x',
    atMost: 0,
    of: 'every',
  },
  'cloneset.reconciles-owner-gated': {
    what: 'reconciles of the owning CloneSet per pod status change, CloneSetEventHandlerOptimization on (exactly 1)',
    unit: 'x',
    atLeast: 1,
    atMost: 1,
    of: 'every',
  },
  'cloneset.reconciles-others-gated': {
    what: 'reconciles of the 9 other CloneSets per pod status change, CloneSetEventHandlerOptimization on',
    unit: 'x',
    atMost: 0,
    of: 'every',
  },
  'statefulset.scale-1000-of-raw': {
    what: 'Advanced StatefulSet (Parallel) scale 0 -> 1,000 on 10 Nodes (bound, not run): pods created per second as a share of raw creates',
    unit: '%',
    atLeast: 50,
  },
  'deployment.scale-1000-bound-of-raw': {
    what: 'Deployment scale 0 -> 1,000 on 10 Nodes (bound, not run): until every pod is bound, as a share of 1,000 raw pod creates bound by the same scheduler',
    unit: '%',
    atLeast: 50,
  },
  'broadcastjob.pods-1000-of-raw': {
    what: 'BroadcastJob on 1,000 Nodes (bound, not run): pods created per second as a share of raw creates of the same pinned pods',
    unit: '%',
    atLeast: 50,
  },
  'statefulset.inplace-vs-recreate': {
    what: 'Advanced StatefulSet (Parallel, maxUnavailable 20%): in-place update of 50 running pods (same-digest tag) vs ReCreate of the same 50: time until all updated and ready',
    unit: 'x',
    atMost: 0.5,
  },
  'daemonset.inplace-vs-recreate': {
    what: 'Advanced DaemonSet (maxUnavailable 1): in-place image update across 5 local nodes (same-digest tag) vs the same update by recreate: time until all updated and Ready',
    unit: 'x',
    atMost: 0.5,
  },
  'statefulset.orderedready-20-overhead': {
    what: "Advanced StatefulSet OrderedReady scale 0 -> 20 running pods: the controller's share of the time (beyond the sum of the pods' own create-to-Ready times)",
    unit: '%',
    atMost: 10,
  },
  'manager.rss': {
    what: 'kruise-manager RSS (built JS), 1,000 NodeImages and 10,000 pods cached',
    unit: 'MB',
    atMost: 200,
  },
  'admission.p99': {
    what: 'admission review p99 at 500 reviews/s, kruise-manager process over keep-alive HTTPS',
    unit: 'ms',
    atMost: 5,
  },
  'sidecarset-injection.p99-100': {
    what: 'pod CREATE through the control plane (kruise-manager pod webhook) p99 with 100 SidecarSets present',
    unit: 'ms',
    atMost: 20,
  },
  'sidecarset-injection.p99-ratio': {
    what: 'pod CREATE p99 with 100 SidecarSets present / with none',
    unit: 'x',
    atMost: 2,
  },
  'pub.admission-p99': {
    what: 'pod DELETE admission p99 through the control plane with a PodUnavailableBudget, 200 at once, two kruise-manager replicas',
    unit: 'ms',
    atMost: 20,
  },
  'pub.over-spent': {
    what: 'rounds in which a PodUnavailableBudget admitted more deletions than it allowed (of 5)',
    unit: '',
    atMost: 0,
  },
  'crr.stop-p50': {
    what: 'ContainerRecreateRequest create -> StopContainer at containerd, p50 (every round)',
    unit: 'ms',
    atMost: 200,
    of: 'every',
  },
  'crr.stop-p99': {
    what: 'ContainerRecreateRequest create -> StopContainer at containerd, p99 (every round)',
    unit: 'ms',
    atMost: 1000,
    of: 'every',
  },
  'daemon.pull-ratio': {
    what: 'cold pull through kruise-daemon / direct CRI PullImage (medians of 15 rounds each)',
    unit: 'x',
    atMost: 1.02,
  },
  'daemon.rss': {
    what: 'kruise-daemon RSS (built JS) after 50 pulls with 100 pods on the node, at rest',
    unit: 'MB',
    atMost: 80,
  },
  'sidecarset.inplace-vs-recreate': {
    what: 'SidecarSet (maxUnavailable 100%): cold sidecar upgrade of 100 running pods in place (same-digest tag) vs recreating the same 100 pods with the new sidecar: time until all run it and are Ready',
    unit: 'x',
    atMost: 0.3,
  },
  'sidecarset.restart-5000-status': {
    what: 'kruise-manager restarted with 5,000 SidecarSets and 5,000 matched pods (bound, not run), statuses reset while it was down: time until every status is current',
    unit: 's',
    atMost: 60,
  },
} satisfies Record<string, Goal>;

/** A key of the goals table. */
export type GoalId = keyof typeof GOALS;

/** The goal of `id`, if it has one. */
export function goalOf(id: string): Goal | undefined {
  return (GOALS as Record<string, Goal>)[id];
}

/** The goals of one suite (keys that start with `<suite>.`). */
export function goalsOfSuite(suite: string): string[] {
  return Object.keys(GOALS).filter((id) => id.startsWith(`${suite}.`));
}

/** Whether `value` meets `goal`. */
export function meets(goal: Goal, value: number): boolean {
  if (Number.isNaN(value)) return false;
  if (goal.atMost !== undefined && value > goal.atMost) return false;
  if (goal.atLeast !== undefined && value < goal.atLeast) return false;
  return true;
}

/** `<= 3 s`, `>= 50 %`. */
export function goalText(goal: Goal): string {
  const bound = goal.atMost !== undefined ? `<= ${goal.atMost}` : `>= ${goal.atLeast}`;
  return `${bound} ${goal.unit}${goal.of === 'every' ? ' in every round' : ''}`;
}
