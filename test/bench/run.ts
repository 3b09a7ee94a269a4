/**
 * `pnpm bench`: every benchmark suite, then a summary of every goal of the suites that ran.
 *
 *   pnpm bench                          all suites, figures and goals printed
 *   pnpm bench -- --only manager        one suite (repeat --only, or comma-separate, for more)
 *   pnpm bench -- --check               exit 1 if a figure misses its goal or a goal goes unmeasured
 *   pnpm bench -- --list                the suites and their goals
 *
 * Adding a figure:
 *   1. Measure it in rounds and report it with `figure('<suite>.<name>', samples)` (figures.ts):
 *      one sample per round; it prints the median, the spread and each round.
 *   2. If it has a goal, add `'<suite>.<name>': { what, unit, atMost | atLeast, of? }` to the ONE
 *      goals table, goals.ts (`of: 'every'` when every round must meet it, not only the median).
 *      A suite that runs must report each of its goals, or `--check` fails it as unmeasured.
 *   3. Figures compared side by side (ours vs a baseline) are measured with `sideBySide(rounds, {A, B})`,
 *      which alternates the order each round (A B, B A, …) and insists on at least 3 rounds.
 * Adding a suite: one `<name>.bench.ts` exporting an async function, and a line in `suites` below;
 * its name is the prefix of its goals' ids.
 */
import { benchAdmission } from './admission.bench.ts';
import { benchBroadcastJob } from './broadcastjob.bench.ts';
import { benchCloneSet } from './cloneset.bench.ts';
import { benchControlPlane } from './control-plane.bench.ts';
import { benchCrr } from './crr.bench.ts';
import { benchDaemon } from './daemon.bench.ts';
import { benchDaemonSet } from './daemonset.bench.ts';
import { benchDeployment } from './deployment.bench.ts';
import { benchLocalNode } from './local-node.bench.ts';
import { benchManager } from './manager.bench.ts';
import { benchPodUnavailableBudget } from './pub.bench.ts';
import { runBench, type Suite } from './runner.ts';
import { benchRuntime } from './runtime.bench.ts';
import { benchSidecarSet } from './sidecarset.bench.ts';
import { benchSidecarSetInjection } from './sidecarset-injection.bench.ts';
import { benchStatefulSet } from './statefulset.bench.ts';

const suites: Suite[] = [
  { name: 'control-plane', title: 'control plane', run: benchControlPlane },
  { name: 'runtime', title: 'controller kit', run: benchRuntime },
  { name: 'manager', title: 'kruise-manager', run: benchManager },
  { name: 'admission', title: 'admission webhooks', run: benchAdmission },
  { name: 'sidecarset-injection', title: 'SidecarSet injection', run: benchSidecarSetInjection },
  { name: 'cloneset', title: 'CloneSet', run: benchCloneSet },
  { name: 'statefulset', title: 'Advanced StatefulSet', run: benchStatefulSet },
  { name: 'daemonset', title: 'Advanced DaemonSet', run: benchDaemonSet },
  { name: 'deployment', title: 'Deployment (control plane)', run: benchDeployment },
  { name: 'broadcastjob', title: 'BroadcastJob', run: benchBroadcastJob },
  { name: 'daemon', title: 'kruise-daemon', run: benchDaemon },
  { name: 'crr', title: 'ContainerRecreateRequest', run: benchCrr },
  { name: 'local-node', title: 'local node (kubelet part)', run: benchLocalNode },
  { name: 'sidecarset', title: 'SidecarSet', run: benchSidecarSet },
  { name: 'pub', title: 'PodUnavailableBudget', run: benchPodUnavailableBudget },
];

process.exitCode = await runBench(suites, process.argv.slice(2));
