import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StartOptions } from '@kruise/stack/program';
import { repoRoot } from '@kruise/stack/repo-root';

/** The unprivileged user tests run programs as (Debian's nobody). */
export const NOBODY = 65534;

/**
 * Start options that run a program as nobody wherever the clone lives — under /root (mode 0700)
 * too, where nobody cannot even reach the Node binary. The program gets a mount namespace of its
 * own with the repository bind-mounted on an empty directory nobody can enter, and sees the
 * repository only there; the mount ends with the program, so nothing is left mounted. (`unshare`
 * and `setpriv` exec, so the program keeps the child's PID.) `remove()` deletes the mount point.
 */
export function asNobody(): { options: StartOptions; remove: () => void } {
  const mountPoint = mkdtempSync(join(tmpdir(), 'kruise-nobody-'));
  chmodSync(mountPoint, 0o755);
  const launcher = [
    'unshare',
    '--mount',
    '--propagation=private',
    '--',
    'sh',
    '-c',
    `mount --bind "$1" "$2" && shift 2 && exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups "$@"`,
    'kruise-nobody',
    repoRoot,
    mountPoint,
  ];
  return {
    options: { launcher, root: mountPoint },
    remove: () => rmSync(mountPoint, { recursive: true, force: true }),
  };
}
