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

/** A commander argument parser for a port number (0 to 65535; 0 picks a free one), naming `flag` in its message. */
export function portArgument(flag: string): (value: string) => number {
  return (value) => {
    if (!isPort(value)) throw new InvalidArgumentError(`${flag} must be a port number`);
    return Number(value);
  };
}

const isPort = (text: string) => /^\d+$/.test(text) && Number(text) <= 65535;

/**
 * A commander argument parser for a Go-style listen address (`:8080`, `127.0.0.1:8000`, `[::1]:80`,
 * or `0` to disable), naming `flag` in its message; the address is returned as given.
 */
export function listenAddressArgument(flag: string): (value: string) => string {
  return (value) => {
    const port = value.slice(value.lastIndexOf(':') + 1);
    if (value !== '0' && !(value.includes(':') && isPort(port)))
      throw new InvalidArgumentError(`${flag} must be a listen address (host:port, :port, or 0 to disable)`);
    return value;
  };
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
