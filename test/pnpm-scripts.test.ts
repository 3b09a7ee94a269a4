import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient } from '@kruise/runtime';
import { installKruiseApi } from '@kruise/stack/cluster-bootstrap';
import { localManagerArgs } from '@kruise/stack/program-recipes';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(join(tmpdir(), 'kruise-scripts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Runs `npx -y pnpm@10 run <script> -- <args>` as a terminal's foreground job (a process group of
 * its own), and at `ready` presses Ctrl-C twice, 20 ms apart (SIGINT to every process of the group).
 * Resolves with everything printed once the last process of the group has gone.
 */
async function ctrlCTwice(script: string, args: string[], ready: string): Promise<string> {
  const child = spawn('npx', ['-y', 'pnpm@10', 'run', script, '--', ...args], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // Every process of the group holds the output pipes: 'close' comes when the last one has gone.
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${script}: not ready in 60 s:\n${output}`)), 60_000);
      const onData = (c: Buffer) => {
        output += c;
        if (output.includes(ready)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
    });
    process.kill(-child.pid!, 'SIGINT');
    await new Promise((r) => setTimeout(r, 20));
    if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGINT');
    await closed;
    expect(groupAlive(child.pid!), 'a process of the group is left').toBe(false);
    return output;
  } finally {
    if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
  }
}

describe('pnpm scripts of the long-running programs', () => {
  // pnpm reports a script whose process was ended by a signal as "ELIFECYCLE  Command failed.":
  // the program did not get to stop what it started.

  it('the control plane stops by itself on Ctrl-C pressed twice, even right at its ready line', async () => {
    const output = await ctrlCTwice(
      'control-plane',
      ['--kubeconfig', join(dir, 'control-plane.kubeconfig')],
      'control plane ready',
    );
    expect(output).not.toContain('ELIFECYCLE');
  }, 90_000);

  it('kruise-manager shuts down by itself on Ctrl-C pressed twice', async () => {
    const cp = await ControlPlane.start();
    try {
      const kubeconfig = join(dir, 'manager.kubeconfig');
      writeFileSync(kubeconfig, cp.kubeconfig());
      await installKruiseApi(KubeClient.fromString(cp.kubeconfig()));
      const output = await ctrlCTwice('manager', localManagerArgs(kubeconfig), 'kruise-manager started');
      expect(output).toContain('"msg":"shutting down"');
      expect(output).not.toContain('ELIFECYCLE');
    } finally {
      await cp.stop();
    }
  }, 90_000);
});

describe('pnpm install’s first screen', () => {
  const json = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));

  it('checks engines against the Node the repository installs and runs on, which satisfies them', () => {
    const installed = execFileSync(join(root, 'node_modules/node/bin/node'), ['--version'], {
      encoding: 'utf8',
    }).trim();
    const { nodeVersion } = parse(readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8'));
    expect(`v${nodeVersion}`).toBe(installed);
    // `>=MAJOR[.MINOR]` ranges, the only form the workspace uses
    const satisfies = (range: string) => {
      const [, major, minor] = /^>=(\d+)(?:\.(\d+))?$/.exec(range)!.map(Number);
      const [M, m] = nodeVersion.split('.').map(Number);
      return M! > major! || (M === major && m! >= (minor || 0));
    };
    for (const file of ['package.json', 'packages/kubectl-kruise/package.json'])
      expect(satisfies(json(file).engines.node), file).toBe(true);
  });

  it('names every dependency with a build script: built (node) or deliberately not built', () => {
    const { onlyBuiltDependencies, ignoredBuiltDependencies } = json('package.json').pnpm;
    const store = join(root, 'node_modules/.pnpm');
    const withBuild = new Set<string>();
    for (const entry of readdirSync(store)) {
      const at = entry.lastIndexOf('@');
      if (at <= 0) continue;
      const name = entry.slice(0, at).replace('+', '/');
      const dir = join(store, entry, 'node_modules', name);
      if (!existsSync(join(dir, 'package.json'))) continue;
      const scripts = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts ?? {};
      if (
        scripts.preinstall ||
        scripts.install ||
        scripts.postinstall ||
        existsSync(join(dir, 'binding.gyp'))
      )
        withBuild.add(name);
    }
    expect([...withBuild].sort()).toEqual([...onlyBuiltDependencies, ...ignoredBuiltDependencies].sort());
  });
});
