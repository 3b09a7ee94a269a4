import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './repo-root.ts';

/** The script that installs and runs containerd, runc and the local registry (ADR 0010). */
export const CRI_STACK_SCRIPT = join(repoRoot, 'packages/cri/scripts/cri-stack.sh');

/** Debian packages the local stack's runtime part needs, and the command each provides. */
const NEEDED: [command: string, pkg: string][] = [
  ['containerd', 'containerd'],
  ['runc', 'runc'],
  ['ctr', 'containerd'],
  ['docker-registry', 'docker-registry'],
  ['skopeo', 'skopeo'],
  ['curl', 'curl'],
];

const has = (command: string) =>
  spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

/** What keeps the runtime part from running here, in words a user can act on (empty: nothing). */
export function runtimePrerequisites(): string[] {
  const missing = NEEDED.filter(([c]) => !has(c)).map(([, p]) => p);
  const uniq = [...new Set(missing)];
  if (process.getuid?.() === 0)
    return has('apt-get') || uniq.length === 0
      ? []
      : [`missing packages ${uniq.join(', ')} and no apt-get to install them`];
  const problems = ['not running as root (containerd and runc need root)'];
  if (uniq.length)
    problems.push(`missing Debian packages: ${uniq.join(' ')} (as root: apt-get install ${uniq.join(' ')})`);
  return problems;
}

/** A running containerd + registry (with the sample images), stopped by its own PIDs. */
export interface RuntimeStack {
  socket: string;
  registry: string;
  down(): void;
}

/**
 * Runs steps of cri-stack.sh for the stack under `dir`; `run` throws with the script's own last
 * lines. `podNetwork: false` starts containerd without a CNI network (only host-network pods run).
 */
export function criStackRunner(dir: string, registryPort: number, opts: { podNetwork?: boolean } = {}) {
  const env = {
    ...process.env,
    CRI_STACK_DIR: dir,
    REG_PORT: String(registryPort),
    CRI_STACK_CNI: opts.podNetwork === false ? '0' : '1',
  };
  /** Runs a step, optionally in a session of its own (out of reach of the terminal's Ctrl-C). */
  const script = (step: string, ownSession = false) =>
    spawnSync(ownSession ? 'setsid' : 'bash', [...(ownSession ? ['bash'] : []), CRI_STACK_SCRIPT, step], {
      env,
      encoding: 'utf8',
    });
  const run = (step: string, ownSession = false) => {
    const r = script(step, ownSession);
    if (r.status !== 0)
      throw new Error(
        `cri-stack.sh ${step} failed:\n${`${r.stderr ?? ''}`.trim().split('\n').slice(-8).join('\n')}`,
      );
  };
  return { script, run };
}

/**
 * Installs what is missing from Debian (root), then starts the local registry with the sample
 * images and containerd with CRI under `dir` (kept short: unix socket paths are limited).
 * @throws with the script's own message when a step fails.
 */
export function startRuntimeStack(
  dir: string,
  registryPort: number,
  log: (line: string) => void,
): RuntimeStack {
  const { script, run } = criStackRunner(dir, registryPort);
  // A stack left by a run that was killed: clean it first (only what lives under dir).
  script('down');
  log('installing containerd, runc, docker-registry and skopeo from Debian when missing');
  run('install');
  log('starting the local registry with sample images, and containerd');
  run('up');
  return {
    socket: join(dir, 'containerd/containerd.sock'),
    registry: `127.0.0.1:${registryPort}`,
    // In a session of its own: a second Ctrl-C while it runs must not kill it halfway.
    down: () => run('down', true),
  };
}
