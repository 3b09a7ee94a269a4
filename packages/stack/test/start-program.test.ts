import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startProgram } from '../src/processes.ts';

const dir = mkdtempSync(join(tmpdir(), 'start-program-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('startProgram', () => {
  it('fails its waiters at once, with the reason, when the program cannot be spawned', async () => {
    const notExecutable = join(dir, 'launcher');
    writeFileSync(notExecutable, '#!/bin/sh\n', { mode: 0o644 });
    for (const [launcher, reason] of [
      [notExecutable, `spawn ${notExecutable} EACCES`],
      [join(dir, 'missing'), `spawn ${join(dir, 'missing')} ENOENT`],
    ] as const) {
      const program = startProgram('broken', 'packages/stack/src/main.ts', [], {}, { launcher: [launcher] });
      const started = performance.now();
      await expect(program.waitFor(/ready/, 60_000)).rejects.toThrow(`broken could not start: ${reason}`);
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(program.output()).toContain(reason);
      expect(await program.stop()).toBe(reason);
    }
  });

  it('fails its waiters at once when the program exits before the line they wait for', async () => {
    const launcher = ['sh', '-c', 'echo cannot go on; exit 3', 'sh'];
    const program = startProgram('early', 'packages/stack/src/main.ts', [], {}, { launcher });
    const started = performance.now();
    await expect(program.waitFor(/ready/, 60_000)).rejects.toThrow('early exited (3):\ncannot go on');
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
