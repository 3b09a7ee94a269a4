import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './repo-root.ts';

/** A program of ours running as a child process, stopped by its PID. */
export interface Program {
  name: string;
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the first match of `pattern` in its output (rejects if it exits first or after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code or signal. */
  stop(graceMs?: number): Promise<number | string | null>;
}

let logDir: string | undefined;

/** Also writes every program's output to `<dir>/<name>.log` from now on (the local stack's logs). */
export function writeProgramLogsTo(dir: string): void {
  mkdirSync(dir, { recursive: true });
  logDir = dir;
}

/** How a program is started, beyond its entry, arguments and environment. */
export interface StartOptions {
  uid?: number;
  gid?: number;
  /** A process group of its own (a terminal's job, which Ctrl-C signals as a whole). */
  detached?: boolean;
  /**
   * A command that execs the program (its argv is appended), e.g. one that switches user or mount
   * namespace first; it must exec, not fork, so the program keeps the child's PID.
   */
  launcher?: string[];
  /** Where the program sees the repository (a bind mount of it), if not at `repoRoot`. */
  root?: string;
  /** Its log file's name (without `.log`) in the stack's log directory; its `name` by default. */
  logName?: string;
}

/**
 * Starts one of our TypeScript entry points on this Node (`process.execPath`, which forwards
 * signals, unlike `node_modules/.bin/node`), with sources resolved through the `source` condition.
 * A program that cannot be spawned at all fails its waiters at once with the reason.
 */
export function startProgram(
  name: string,
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: StartOptions = {},
): Program {
  const { launcher = [], root = repoRoot, logName = name, ...spawnOptions } = options;
  const execPath = process.execPath.startsWith(`${repoRoot}/`)
    ? join(root, process.execPath.slice(repoRoot.length))
    : process.execPath;
  const argv = [...launcher, execPath, '--conditions=source', join(root, entry), ...args];
  const child = spawn(argv[0]!, argv.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
    ...spawnOptions,
  });
  return watchProgram(name, child, logName);
}

/**
 * A Program over a child process spawned with stdout and stderr piped: its output (also written to
 * `<logName>.log` in the stack's log directory when set), waiting for a line, stopping by PID. A
 * child that could not be spawned at all fails its waiters at once with the reason.
 */
export function watchProgram(name: string, child: ChildProcess, logName = name): Program {
  const argv0 = child.spawnfile;
  let spawnError: Error | undefined;
  let out = '';
  const waiters: (() => void)[] = [];
  const file = logDir ? createWriteStream(join(logDir, `${logName}.log`), { flags: 'a' }) : undefined;
  const onData = (c: Buffer) => {
    file?.write(c);
    out += c.toString();
    if (out.length > 4_000_000) out = out.slice(-2_000_000);
    for (const w of waiters.splice(0)) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  // 'exit' can come before the last output is read: the program counts as ended once its pipes
  // close too (or a second after exit, should a grandchild hold them open).
  let ended = false;
  const exited = new Promise<number | string | null>((r) => {
    child.once('exit', (code, signal) => {
      const end = () => {
        if (ended) return;
        ended = true;
        r(code ?? signal);
      };
      child.once('close', end);
      setTimeout(end, 1_000).unref();
    });
    // No 'exit' follows a failed spawn: settle with the reason, and wake the waiters now.
    child.once('error', (err) => {
      if (child.pid !== undefined) return;
      spawnError = err;
      out += `cannot start ${argv0}: ${err.message}\n`;
      for (const w of waiters.splice(0)) w();
      r(err.message);
    });
  });
  return {
    name,
    child,
    output: () => out,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${name}: no ${pattern} in ${timeoutMs} ms:\n${out.slice(-3000)}`)),
          timeoutMs,
        );
        const check = () => {
          const m = pattern.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m);
          } else if (spawnError) {
            clearTimeout(timer);
            reject(new Error(`${name} could not start: ${spawnError.message}`));
          } else if (ended) {
            clearTimeout(timer);
            reject(new Error(`${name} exited (${child.exitCode ?? child.signalCode}):\n${out.slice(-3000)}`));
          } else waiters.push(check);
        };
        check();
        void exited.then(() => waiters.includes(check) && check());
      });
    },
    async stop(graceMs = 15_000) {
      if (spawnError) return spawnError.message;
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode ?? child.signalCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/**
 * Waits for `pattern` in a program's output; if it does not come (timeout, exit, failed spawn) the
 * program is stopped by its PID before the error is rethrown, so no half-started program is left
 * running behind a failed start.
 */
export async function readyOrStop(
  program: Program,
  pattern: RegExp,
  timeoutMs?: number,
): Promise<RegExpExecArray> {
  try {
    return await program.waitFor(pattern, timeoutMs);
  } catch (err) {
    await program.stop();
    throw err;
  }
}
