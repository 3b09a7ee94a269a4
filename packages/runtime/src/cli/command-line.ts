import { type Command, CommanderError, InvalidArgumentError } from 'commander';
import { parseDuration } from '../certs/duration.ts';

/** A commander argument parser for durations (`90s`, `10m`, `1h30m`), with parseDuration's message. */
export function durationArgument(value: string): number {
  try {
    return parseDuration(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/**
 * Parses argv (user arguments only) with `cmd`, which must use `exitOverride()`. Bad input
 * becomes a CommanderError with exit code 2, as our programs exit on usage errors; `--help`
 * keeps its exit code 0.
 */
export function parseCommandLine(cmd: Command, argv: string[]): void {
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError && err.exitCode !== 0)
      throw new CommanderError(2, err.code, err.message);
    throw err;
  }
}
