/**
 * What a program's command line ends with instead of options: `--help` (exit code 0, `message` the
 * help for stdout) or a command line it cannot run with (exit code 2, `message` one line in pflag's
 * words, e.g. `unknown flag: --foo`, printed as `error: unknown flag: --foo`).
 */
export class UsageError extends Error {
  /** The program's exit code: 0 after help, 2 for a usage error. */
  readonly exitCode: 0 | 2;

  constructor(exitCode: 0 | 2, message: string) {
    super(message);
    this.name = 'UsageError';
    this.exitCode = exitCode;
  }
}
