import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  readRunRecord,
  runs,
  STACK_ENTRY,
  settleEarlierRun,
  WATCHDOG_ENTRY,
  writeRunRecord,
} from '../src/leftovers.ts';
import { repoRoot } from '../src/repo-root.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const stateDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'leftovers-'));
  dirs.push(dir);
  return dir;
};

/**
 * A Node process whose command line carries `marker` (as /proc/PID/cmdline shows a program's
 * entry), running `script`; resolves once the script has run (its signal handlers are in place).
 */
async function fakeProcess(marker: string, script: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', `${script}; process.stdout.write('ready')`, marker], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(child);
  await new Promise((resolve) => {
    child.stdout!.once('data', resolve);
    child.once('exit', resolve);
  });
  return child;
}

/** Stops on SIGTERM only after `ms`, as a program busy stopping what it started. */
const slowToStop = (ms: number) =>
  `process.on('SIGTERM', () => setTimeout(() => process.exit(0), ${ms})); setInterval(() => {}, 1000);`;

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

/** A PID that no process has any more. */
async function deadPid(): Promise<number> {
  const child = await fakeProcess('gone', '');
  await exited(child);
  return child.pid!;
}

describe('a new pnpm start in a state directory an earlier run used', () => {
  it('refuses to start beside a run that is still running', async () => {
    const dir = stateDir();
    const other = await fakeProcess(STACK_ENTRY, 'setInterval(() => {}, 1000)');
    writeRunRecord(dir, { pid: other.pid!, runtimeDirs: [], programs: [] });
    await expect(settleEarlierRun(dir, () => {})).rejects.toThrow(
      `another pnpm start (pid ${other.pid}) is running with ${dir}: stop it first`,
    );
    expect(runs(other.pid, STACK_ENTRY)).toBe(true);
  });

  it('waits for a run that is stopping (Ctrl-C pressed just before) to finish', async () => {
    const dir = stateDir();
    const stopping = await fakeProcess(STACK_ENTRY, slowToStop(1500));
    writeRunRecord(dir, { pid: stopping.pid!, runtimeDirs: [], programs: [], stopping: true });
    stopping.kill('SIGTERM');
    const said: string[] = [];
    await settleEarlierRun(dir, (l) => said.push(l));
    expect(runs(stopping.pid, STACK_ENTRY)).toBe(false);
    expect(said).toEqual([`waiting for an earlier run (pid ${stopping.pid}) to stop`]);
  });

  it('lets the watchdog of a killed run finish stopping what it left before going on (no clean-up of its own racing it)', async () => {
    const dir = stateDir();
    mkdirSync(join(dir, 'logs'));
    const program = await fakeProcess('leftovers-test-program', slowToStop(1500));
    const killedRun = await deadPid();
    // The watchdog the killed run started: it stops the run's programs once its pipe ends, then
    // notes it in logs/watchdog.log.
    const watchdog = spawn(process.execPath, ['--conditions=source', join(repoRoot, WATCHDOG_ENTRY), dir], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    children.push(watchdog);
    writeRunRecord(dir, {
      pid: killedRun,
      watchdog: watchdog.pid!,
      runtimeDirs: [],
      programs: [{ name: 'fake', pid: program.pid!, entry: 'leftovers-test-program' }],
    });
    await new Promise((r) => watchdog.once('spawn', r));
    watchdog.stdin!.end(); // the killed run's end of the pipe closes
    const said: string[] = [];
    await settleEarlierRun(dir, (l) => said.push(l));
    // The watchdog is done: it stopped the program, wrote its note and removed the record; nothing
    // writes into the directory any more, so the new run may clear its logs.
    expect(runs(watchdog.pid, WATCHDOG_ENTRY)).toBe(false);
    expect(runs(program.pid, 'leftovers-test-program')).toBe(false);
    expect(readFileSync(join(dir, 'logs/watchdog.log'), 'utf8')).toContain(
      `pnpm start (pid ${killedRun}) was killed; stopped what it left: fake (pid ${program.pid})`,
    );
    expect(readRunRecord(dir)).toBeUndefined();
    expect(said).toEqual([
      `waiting for the watchdog (pid ${watchdog.pid}) of an earlier, killed run (pid ${killedRun}) to stop what it left`,
    ]);
    rmSync(join(dir, 'logs'), { recursive: true });
    expect(existsSync(join(dir, 'logs'))).toBe(false);
  });

  it('stops by their recorded PIDs the programs of a killed run whose watchdog was killed too', async () => {
    const dir = stateDir();
    const program = await fakeProcess('leftovers-test-program', slowToStop(300));
    const killedRun = await deadPid();
    writeRunRecord(dir, {
      pid: killedRun,
      watchdog: await deadPid(),
      runtimeDirs: [],
      programs: [{ name: 'fake', pid: program.pid!, entry: 'leftovers-test-program' }],
    });
    const said: string[] = [];
    await settleEarlierRun(dir, (l) => said.push(l));
    expect(runs(program.pid, 'leftovers-test-program')).toBe(false);
    expect(said).toEqual([
      `stopped what an earlier, killed run (pid ${killedRun}) left: fake (pid ${program.pid})`,
    ]);
  });
});
