import { UsageError } from './usage-error.ts';

/**
 * Runs a program's option parsing: after `--help` the program prints the help on stdout and exits
 * 0; after a usage error it prints the error as one line `error: …` on stderr and exits 2.
 */
export function optionsOrExit<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    if (err.exitCode === 0) {
      process.stdout.write(err.message);
      process.exit(0);
    }
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(2);
  }
}
