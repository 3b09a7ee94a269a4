import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { labelSelectorString } from '@kruise/kube-compat/label-selector';
import type { KubeObject } from '@kruise/runtime/kube/client';
import { Resources } from '@kruise/runtime/kube/resources';
import type { Command, CommandContext } from '../command.ts';
import { ExitCode } from '../errors.ts';
import { connectionFlags } from '../global-flags.ts';
import { requireKind } from '../kinds.ts';
import { ownedActivePods } from '../restart-in-place/workload.ts';

/** The pod annotation SidecarSet hot upgrade keeps: sidecar name → the working container's name. */
export const WORKING_HOT_UPGRADE_ANNOTATION = 'kruise.io/sidecarset-working-hotupgrade-container';

/** The `kubectl` exec hands over to: the first on PATH (kubectl runs plugins with its own PATH). */
export function kubectlOnPath(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'kubectl');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * The container to enter: the working copy of a hot-upgrade sidecar named by `-S` (the pod's
 * annotation maps it), else `-c`, else the `-S` name itself, else none (kubectl picks the default).
 */
export function execContainer(
  pod: KubeObject,
  sidecar: string,
  container: string,
): { name?: string; working?: boolean } {
  let working: Record<string, string> = {};
  try {
    working = JSON.parse(pod.metadata?.annotations?.[WORKING_HOT_UPGRADE_ANNOTATION] ?? '{}') ?? {};
  } catch {}
  if (sidecar && typeof working[sidecar] === 'string') return { name: working[sidecar], working: true };
  const name = container || sidecar;
  return name ? { name } : {};
}

/** The pod `POD`, `pod/NAME` or a Kruise workload (`cloneset/NAME`: its first running pod) names. */
async function podOf(ctx: CommandContext, ref: string): Promise<KubeObject> {
  const client = ctx.client();
  const namespace = ctx.namespace();
  const slash = ref.indexOf('/');
  const type = slash < 0 ? 'pod' : ref.slice(0, slash).toLowerCase();
  const name = slash < 0 ? ref : ref.slice(slash + 1);
  if (['pod', 'pods', 'po'].includes(type)) return client.get(Resources.Pod, namespace, name);
  const kind = requireKind(type);
  const workload = await client.get(kind.resource, namespace, name);
  const selected = await client.listAll(Resources.Pod, {
    namespace,
    labelSelector: labelSelectorString(workload.spec?.selector),
  });
  const running = (p: KubeObject) =>
    p.status?.phase === 'Running' &&
    (p.status?.conditions ?? []).some((c: any) => c?.type === 'Ready' && c.status === 'True');
  const [first] = ownedActivePods(workload, selected.items).sort(
    (a, b) =>
      Number(running(b)) - Number(running(a)) ||
      String(a.metadata?.creationTimestamp).localeCompare(String(b.metadata?.creationTimestamp)) ||
      String(a.metadata?.name).localeCompare(String(b.metadata?.name)),
  );
  if (!first) throw new Error(`no pods found for ${kind.kind.toLowerCase()}/${name}`);
  return first;
}

/**
 * `kubectl kruise exec (POD | TYPE/NAME) [-c CONTAINER] [-S SIDECAR] [-i] [-t] -- COMMAND`
 * (kruise-tools): kubectl's exec, where `-S` enters the working copy of a SidecarSet hot-upgrade
 * sidecar. The pod and container are resolved here; the stream is `kubectl exec`'s (run with the
 * same connection flags, the terminal passed through, its exit code returned).
 */
export const exec: Command = {
  path: 'exec',
  short: 'Execute a command in a container',
  usage:
    'kubectl kruise exec (POD | TYPE/NAME) [-c CONTAINER] [-S SIDECARSET_CONTAINER] [flags] -- COMMAND [args...]',
  long: `Execute a command in a container.

Examples:
  # Get output from running 'date' command in working sidecar container from pod mypod
  kubectl kruise exec mypod -S sidecar-container -- date

  # Switch to raw terminal mode, sends stdin to 'bash' in working sidecar container from pod mypod
  kubectl kruise exec mypod -S sidecar-container -i -t -- bash -il

  # Get output from running 'date' command from the first pod of the cloneset myclone
  kubectl kruise exec clone/myclone -- date`,
  flags: [
    {
      name: 'container',
      short: 'c',
      type: 'string',
      usage: 'Container name. If omitted, the first container in the pod will be chosen',
    },
    {
      name: 'sidecar',
      short: 'S',
      type: 'string',
      usage: 'SidecarSet container name.When sidecarset is hotUpgrade, the working container will be chosen',
    },
    { name: 'stdin', short: 'i', type: 'bool', usage: 'Pass stdin to the container' },
    { name: 'tty', short: 't', type: 'bool', usage: 'Stdin is a TTY' },
  ],
  async run(ctx) {
    const [ref, ...command] = ctx.args;
    if (!ref) throw new Error('pod, type/name or --filename must be specified');
    if (command.length === 0) throw new Error('you must specify at least one command for the container');
    const pod = await podOf(ctx, ref);
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed')
      throw new Error(`cannot exec into a container in a completed pod; current phase is ${phase}`);
    const target = execContainer(pod, String(ctx.flags.sidecar ?? ''), String(ctx.flags.container ?? ''));
    if (target.working) ctx.err(`Enter working container ${target.name} of SidecarSet.\n`);
    const kubectl = kubectlOnPath(process.env);
    if (!kubectl) throw new Error('exec needs kubectl on PATH');
    const connection = Object.entries(connectionFlags(ctx.flags))
      .filter(([k]) => k !== 'namespace')
      .map(([k, v]) => `--${k}=${v}`);
    const args = [
      'exec',
      pod.metadata!.name,
      `--namespace=${pod.metadata!.namespace}`,
      ...connection,
      ...(target.name ? [`--container=${target.name}`] : []),
      ...(ctx.flags.stdin ? ['--stdin'] : []),
      ...(ctx.flags.tty ? ['--tty'] : []),
      '--',
      ...command,
    ];
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(kubectl, args, { stdio: 'inherit' });
      child.on('error', reject);
      child.on('close', (c, signal) => resolve(c ?? (signal ? 130 : 1)));
    });
    if (code !== 0) throw new ExitCode(code);
  },
};
