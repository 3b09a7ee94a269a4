import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

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

describe('pnpm scripts of the long-running programs', () => {
  it('end quietly on Ctrl-C (SIGINT to the whole process group)', async () => {
    // A process group of its own, as a terminal's foreground job: Ctrl-C signals every process in it.
    const child = spawn(
      'npx',
      ['-y', 'pnpm@10', 'run', 'control-plane', '--', '--kubeconfig', join(dir, 'kubeconfig')],
      { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    // Every process of the group holds the output pipes: 'close' comes when the last one has gone.
    const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not ready in 60 s:\n${output}`)), 60_000);
        child.stdout.on('data', () => {
          if (output.includes('control plane ready')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      process.kill(-child.pid!, 'SIGINT');
      await closed;
      // pnpm reports a script whose shell was ended by the signal as "ELIFECYCLE  Command failed."
      expect(output).not.toContain('ELIFECYCLE');
      expect(groupAlive(child.pid!)).toBe(false);
    } finally {
      if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
    }
  }, 90_000);
});
