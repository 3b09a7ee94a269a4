import type { ChildProcess } from 'node:child_process';
import type { Program } from './program.ts';

/** How a supervisor restarts a program (kubelet's container restart back-off by default). */
export interface SuperviseOptions {
  /** The first wait before a restart (kubelet: 10 s); it doubles after each exit. */
  initialBackoffMs?: number;
  /** The longest wait (kubelet: 5 min). */
  maxBackoffMs?: number;
  /** A program that ran this long before it exited is restarted after the initial wait again (kubelet: 10 min). */
  resetAfterMs?: number;
  /** Told each time the program was started again, with the new instance (e.g. to record its PID). */
  onRestart?: (instance: Program, restarts: number) => void;
  /** Told each time the program exits on its own, with its exit code or signal. */
  onExit?: (instance: Program, result: number | string | null) => void;
}

/** A supervised program: always the instance running now; `stop` ends the supervision first. */
export interface SupervisedProgram extends Program {
  /** How many times it was started again after exiting on its own. */
  restarts(): number;
  /** Resolves once it has been started again at least `count` times in all. */
  restarted(count: number, timeoutMs?: number): Promise<void>;
  /** The instance running now (its own output only). */
  current(): Program;
  /** Ends the supervision and leaves the instance running now as it is (to kill it without a restart). */
  unsupervise(): Program;
}

/**
 * Keeps a program running as kubelet keeps a container of a `restartPolicy: Always` pod running:
 * when it exits on its own (a crash, a lost Lease), it is started again after a back-off that
 * doubles from `initialBackoffMs` up to `maxBackoffMs` and resets once an instance ran for
 * `resetAfterMs`. The program's output is the output of every instance, in order; `child` is the
 * instance running now. `stop()` ends the supervision, then stops the instance by its PID.
 */
export function supervise(start: () => Program, options: SuperviseOptions = {}): SupervisedProgram {
  const initial = options.initialBackoffMs ?? 10_000;
  const max = options.maxBackoffMs ?? 300_000;
  const resetAfter = options.resetAfterMs ?? 600_000;
  let current = start();
  let earlierOutput = '';
  let restarts = 0;
  let backoff = initial;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const restartWaiters: (() => void)[] = [];

  const follow = (instance: Program) => {
    const startedAt = Date.now();
    instance.child.once('exit', (code, signal) => {
      if (stopped) return;
      options.onExit?.(instance, code ?? signal);
      if (Date.now() - startedAt >= resetAfter) backoff = initial;
      const wait = backoff;
      backoff = Math.min(backoff * 2, max);
      timer = setTimeout(() => {
        if (stopped) return;
        earlierOutput += instance.output();
        current = start();
        restarts++;
        follow(current);
        options.onRestart?.(current, restarts);
        for (const w of restartWaiters.splice(0)) w();
      }, wait);
    });
  };
  follow(current);

  return {
    get name() {
      return current.name;
    },
    get child(): ChildProcess {
      return current.child;
    },
    output: () => earlierOutput + current.output(),
    waitFor: (pattern, timeoutMs = 60_000) => waitForAcrossRestarts(pattern, timeoutMs),
    restarts: () => restarts,
    current: () => current,
    unsupervise() {
      stopped = true;
      clearTimeout(timer);
      return current;
    },
    restarted(count, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`${current.name}: not restarted ${count} times in ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = () => {
          if (restarts >= count) {
            clearTimeout(deadline);
            resolve();
          } else restartWaiters.push(check);
        };
        check();
      });
    },
    async stop(graceMs) {
      stopped = true;
      clearTimeout(timer);
      return current.stop(graceMs);
    },
  };

  /** Waits for `pattern` in the output of any instance, earlier ones included, until the deadline. */
  async function waitForAcrossRestarts(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const seen = pattern.exec(earlierOutput);
      if (seen) return seen;
      const instance = current;
      try {
        return await instance.waitFor(pattern, Math.max(1, deadline - Date.now()));
      } catch (err) {
        // The instance ended before the pattern came: wait for the next one, unless time is up.
        if (stopped || Date.now() >= deadline) throw err;
        await new Promise<void>((resolve) => {
          if (current !== instance) resolve();
          else restartWaiters.push(resolve);
          setTimeout(resolve, Math.max(1, deadline - Date.now())).unref();
        });
      }
    }
  }
}

/**
 * Supervises a program and resolves once its first instance printed `ready` (the match is
 * returned); if it does not (timeout, or it exits first), supervision ends and the program is
 * stopped by its PID before the error is rethrown.
 */
export async function startSupervised(
  start: () => Program,
  ready: RegExp,
  options: SuperviseOptions & { readyTimeoutMs?: number } = {},
): Promise<{ program: SupervisedProgram; ready: RegExpExecArray }> {
  const program = supervise(start, options);
  try {
    return { program, ready: await program.current().waitFor(ready, options.readyTimeoutMs) };
  } catch (err) {
    await program.stop();
    throw err;
  }
}
