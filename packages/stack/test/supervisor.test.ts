import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { watchProgram } from '../src/program.ts';
import { supervise } from '../src/supervisor.ts';

/** Instances spawned so far, and when each was spawned. */
const spawnedAt: number[] = [];

/** A Node one-liner as a program of ours: prints its instance number, then runs `then`. */
const script = (then: string) => () => {
  spawnedAt.push(Date.now());
  return watchProgram(
    'flaky',
    spawn(process.execPath, ['-e', `console.log('instance ${spawnedAt.length}'); ${then}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
};

describe('supervise', () => {
  it('starts a program that exits on its own again after a doubling back-off, keeping every instance output', async () => {
    spawnedAt.length = 0;
    const exitedAt: number[] = [];
    const results: (number | string | null)[] = [];
    const program = supervise(script('process.exit(1)'), {
      initialBackoffMs: 50,
      maxBackoffMs: 200,
      onExit: (_instance, result) => {
        exitedAt.push(Date.now());
        results.push(result);
      },
    });
    await program.restarted(4);
    await program.stop();
    expect(results.slice(0, 4)).toEqual([1, 1, 1, 1]);
    expect(program.output()).toContain('instance 1\ninstance 2\ninstance 3\ninstance 4\n');
    expect(program.current().output()).not.toContain('instance 1');
    // Instance k+1 was spawned no sooner than the back-off after instance k exited: 50, 100, 200, 200 ms.
    const backoffs = [50, 100, 200, 200];
    for (let k = 0; k < 4; k++)
      expect(spawnedAt[k + 1]! - exitedAt[k]!).toBeGreaterThanOrEqual(backoffs[k]! - 1);
  });

  it('stops the instance running now, by its PID, without starting another', async () => {
    spawnedAt.length = 0;
    const program = supervise(script('setTimeout(() => undefined, 100_000)'), { initialBackoffMs: 10 });
    await program.waitFor(/instance 1/);
    const pid = program.child.pid;
    expect(await program.stop(5000)).toBe('SIGTERM');
    expect(program.restarts()).toBe(0);
    expect(program.child.pid).toBe(pid);
    expect(spawnedAt).toHaveLength(1);
  });
});
