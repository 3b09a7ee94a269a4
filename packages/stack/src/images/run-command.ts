import { spawn } from 'node:child_process';

/** What a finished command left: its exit code and its output, stdout and stderr interleaved. */
export interface CommandResult {
  code: number | null;
  output: string;
}

/**
 * Runs a command to its end without blocking the event loop (a build takes minutes; a test runner's
 * timers must keep firing meanwhile). Rejects, with the output's last lines, when it exits non-zero.
 */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; onLine?: (line: string) => void } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let partial = '';
    const take = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output += text;
      if (!options.onLine) return;
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) options.onLine(line);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (partial && options.onLine) options.onLine(partial);
      if (code === 0) return resolve({ code, output });
      const tail = output.trimEnd().split('\n').slice(-25).join('\n');
      reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit code ${code}`}):\n${tail}`));
    });
  });
}
