import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readyOrStop, startProgram, writeProgramLogsTo } from '../src/program.ts';
import { startDaemonProcess, startLocalNodeProcess } from '../src/program-recipes.ts';

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
      // Not the timeout's words (`no /ready/ in 60000 ms`): it did not wait.
      await expect(program.waitFor(/ready/, 60_000)).rejects.toThrow(`broken could not start: ${reason}`);
      expect(program.output()).toContain(reason);
      expect(await program.stop()).toBe(reason);
    }
  });

  it('fails its waiters at once when the program exits before the line they wait for', async () => {
    const launcher = ['sh', '-c', 'echo cannot go on; exit 3', 'sh'];
    const program = startProgram('early', 'packages/stack/src/main.ts', [], {}, { launcher });
    await expect(program.waitFor(/ready/, 60_000)).rejects.toThrow('early exited (3):\ncannot go on');
  });

  it('stops a program by its PID when its ready line does not come in time', async () => {
    // Lives on and never prints the line: a start that times out must not leave it running.
    const launcher = ['sh', '-c', 'exec sleep 600', 'sh'];
    const program = startProgram('silent', 'packages/stack/src/main.ts', [], {}, { launcher });
    await expect(readyOrStop(program, /ready/, 500)).rejects.toThrow('silent: no /ready/ in 500 ms');
    expect(program.child.signalCode).toBe('SIGTERM');
    expect(() => process.kill(program.child.pid!, 0)).toThrow(/ESRCH/);
  });
});

describe('node programs in the stack', () => {
  it('write each node its own log: local-node-<node>.log and kruise-daemon-<node>.log', async () => {
    const logs = join(dir, 'logs');
    writeProgramLogsTo(logs);
    const kubeconfig = join(dir, 'no-such-kubeconfig');
    const starts = ['node-a', 'node-b'].flatMap((node) => [
      startLocalNodeProcess(kubeconfig, node, 'unix:///no-such.sock', ['--pod-logs-dir', join(dir, node)]),
      startDaemonProcess(kubeconfig, node, 'unix:///no-such.sock'),
    ]);
    // Without a kubeconfig each exits at once (its waiter says so); what it printed is in its own file.
    for (const result of await Promise.allSettled(starts)) {
      expect(result.status).toBe('rejected');
      expect(String((result as PromiseRejectedResult).reason)).toMatch(/exited \(1\)/);
    }
    expect(readdirSync(logs).sort()).toEqual([
      'kruise-daemon-node-a.log',
      'kruise-daemon-node-b.log',
      'local-node-node-a.log',
      'local-node-node-b.log',
    ]);
    for (const file of readdirSync(logs))
      expect(readFileSync(join(logs, file), 'utf8'), file).toContain(kubeconfig);
  }, 120_000);
});
