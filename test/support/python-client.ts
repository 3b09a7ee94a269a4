import { execFileSync, spawnSync } from 'node:child_process';

/** Debian's Python, with Debian's `python3-kubernetes` (never a pyenv or venv interpreter on PATH). */
export const DEBIAN_PYTHON = '/usr/bin/python3';

const hasClient = () =>
  spawnSync(DEBIAN_PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0;

/**
 * Makes sure the official Python client (Debian's `python3-kubernetes`, client 22.6) is installed:
 * as root it is installed with apt-get when missing, as the CRI stack setup installs its packages.
 * @throws with what to run when it is missing and cannot be installed here.
 */
export function ensurePythonClient(): string {
  if (hasClient()) return DEBIAN_PYTHON;
  if (process.getuid?.() !== 0)
    throw new Error('the Python client is missing (as root: apt-get install python3-kubernetes)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { env, stdio: 'ignore' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'python3-kubernetes'], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (!hasClient()) throw new Error('python3-kubernetes was installed but `import kubernetes` still fails');
  return DEBIAN_PYTHON;
}
