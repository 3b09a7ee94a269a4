import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CRI_STACK_SCRIPT } from './runtime-stack.ts';

/**
 * What a running `pnpm start` records in `<state-dir>/run.json`: its own PID, the runtime
 * directory it started containerd and the registry under, and the programs it started. Its
 * watchdog and the next `pnpm start` read it to stop, by these PIDs, what a killed run left.
 */
export interface RunRecord {
  pid: number;
  /** The watchdog's PID. */
  watchdog?: number;
  /** Where cri-stack.sh runs containerd and the registry for this run (the first) and its extra nodes. */
  runtimeDirs: string[];
  programs: { name: string; pid: number; entry: string }[];
  /** Set once the run has begun to stop everything it started (Ctrl-C, SIGTERM). */
  stopping?: boolean;
}

/** What identifies the stack's own process in /proc/PID/cmdline. */
export const STACK_ENTRY = 'packages/stack/src/main.ts';

/** What identifies the stack's watchdog in /proc/PID/cmdline. */
export const WATCHDOG_ENTRY = 'packages/stack/src/watchdog.ts';

const recordFile = (stateDir: string) => join(stateDir, 'run.json');

/** Writes the record (whole, never half-written: a temporary file renamed over it). */
export function writeRunRecord(stateDir: string, record: RunRecord): void {
  const tmp = `${recordFile(stateDir)}.tmp`;
  writeFileSync(tmp, JSON.stringify(record));
  renameSync(tmp, recordFile(stateDir));
}

/** The record a run left in `stateDir`, if any. */
export function readRunRecord(stateDir: string): RunRecord | undefined {
  try {
    return JSON.parse(readFileSync(recordFile(stateDir), 'utf8')) as RunRecord;
  } catch {
    return undefined;
  }
}

/** Removes the record (a run that stopped cleanly left nothing). */
export function removeRunRecord(stateDir: string): void {
  rmSync(recordFile(stateDir), { force: true });
}

/** Whether `pid` is alive and its command line contains `marker` (a recycled PID is not ours). */
export function runs(pid: number | undefined, marker: string): boolean {
  if (!pid) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(marker);
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits at most `timeoutMs` for `pid` (recognised by `marker`) to be gone; whether it is. */
async function gone(pid: number, marker: string, timeoutMs: number): Promise<boolean> {
  for (let waited = 0; waited < timeoutMs && runs(pid, marker); waited += 100) await sleep(100);
  return !runs(pid, marker);
}

/** SIGKILL, unless it has gone already. */
function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // it has just exited
  }
}

/** SIGTERM, then SIGKILL after `graceMs` if it is still there. */
async function terminate(pid: number, marker: string, graceMs: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  if (!(await gone(pid, marker, graceMs))) kill(pid);
}

/** The runtime daemons cri-stack.sh started under `dir`, with the PIDs it recorded and how to recognise them. */
const runtimeDaemons = (dir: string) =>
  [
    ['registry', join(dir, 'registry/pid'), 'docker-registry'],
    ['containerd', join(dir, 'containerd/pid'), 'containerd'],
    ['dockerd', join(dir, 'docker/pid'), 'dockerd'],
  ].map(([name, file, marker]) => ({
    name: name!,
    marker: marker!,
    pid: existsSync(file!) ? Number(readFileSync(file!, 'utf8').trim()) : undefined,
  }));

/**
 * Stops what a run that is gone left behind, by the PIDs it recorded: its programs (SIGTERM, then
 * SIGKILL), then containerd and the registry through `cri-stack.sh down` for each of its runtime
 * directories, extra nodes' first (in a session of its own), then SIGKILL for any of them still
 * there. Returns what it found running, e.g. `registry (pid 12)`.
 */
export async function cleanUpAfter(record: RunRecord): Promise<string[]> {
  const found: string[] = [];
  const programs = record.programs.filter((p) => runs(p.pid, p.entry));
  for (const p of programs) found.push(`${p.name} (pid ${p.pid})`);
  await Promise.all(programs.map((p) => terminate(p.pid, p.entry, 5000)));
  for (const dir of [...(record.runtimeDirs ?? [])].reverse()) {
    if (!existsSync(dir)) continue;
    const daemons = runtimeDaemons(dir).filter((d) => runs(d.pid, d.marker));
    for (const d of daemons) found.push(`${d.name} (pid ${d.pid})`);
    spawnSync('setsid', ['bash', CRI_STACK_SCRIPT, 'down'], {
      env: { ...process.env, CRI_STACK_DIR: dir },
      stdio: 'ignore',
    });
    for (const d of daemons) if (runs(d.pid, d.marker)) kill(d.pid!);
  }
  return found;
}

/** How long a new run waits for an earlier one that is stopping, and for its watchdog's clean-up. */
const EARLIER_RUN_WAIT_MS = 60_000;

/**
 * Makes way for a new run in `stateDir`, whatever an earlier run left there, by the PIDs it
 * recorded: a run still stopping (Ctrl-C, a supervisor's SIGTERM) is waited for; the watchdog of a
 * run that was killed is waited for while it stops what that run left (both are stopped by PID
 * should they not be done within a minute); then anything still running is stopped (see
 * {@link cleanUpAfter}). Only then may the new run clear the directory's logs.
 * @param say reports, in one line each, what it waited for and what it stopped.
 * @throws Error when another run is running with `stateDir` (not stopping).
 */
export async function settleEarlierRun(stateDir: string, say: (line: string) => void): Promise<void> {
  const earlier = readRunRecord(stateDir);
  if (!earlier || earlier.pid === process.pid) return;
  if (runs(earlier.pid, STACK_ENTRY)) {
    if (!earlier.stopping)
      throw new Error(`another pnpm start (pid ${earlier.pid}) is running with ${stateDir}: stop it first`);
    say(`waiting for an earlier run (pid ${earlier.pid}) to stop`);
    if (!(await gone(earlier.pid, STACK_ENTRY, EARLIER_RUN_WAIT_MS))) kill(earlier.pid);
  }
  const watchdog = earlier.watchdog;
  if (watchdog && runs(watchdog, WATCHDOG_ENTRY)) {
    say(
      `waiting for the watchdog (pid ${watchdog}) of an earlier, killed run (pid ${earlier.pid}) to stop what it left`,
    );
    if (!(await gone(watchdog, WATCHDOG_ENTRY, EARLIER_RUN_WAIT_MS))) kill(watchdog);
  }
  const left = await cleanUpAfter(earlier);
  if (left.length) say(`stopped what an earlier, killed run (pid ${earlier.pid}) left: ${left.join(', ')}`);
}
