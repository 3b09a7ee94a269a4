import { formatGoDurationMs, parseGoBool, parseGoDurationMs } from '@kruise/kube-compat';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';

/**
 * A program's command line as every program of ours has it: help on stdout; errors are not printed
 * by commander but thrown (see {@link parseCommandLine}) for the program to print as one line.
 */
export function programCommand(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
      outputError: () => {},
    });
}

/** The longest timer Node.js can set (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A commander argument parser for Go durations (`90s`, `10m`, `1h30m`), in milliseconds, with Go's
 * message; durations are timers here, so one longer than Node.js can time (24.8 days) is refused.
 */
export function durationArgument(value: string): number {
  let ms: number;
  try {
    ms = parseGoDurationMs(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  if (ms > MAX_TIMER_MS)
    throw new InvalidArgumentError(
      `must be at most ${formatGoDurationMs(MAX_TIMER_MS)} (the longest timer Node.js sets)`,
    );
  return ms;
}

/**
 * A duration flag as pflag's `DurationVar` has it: it takes Go durations (`5m`, `30s`, `1h30m`),
 * its value is in milliseconds, and its default is printed as Go prints a duration (`5m0s`), so
 * that what `--help` shows can be passed back.
 */
export function durationOption(flags: string, description: string, defaultMs: number): Option {
  return new Option(flags, description)
    .argParser(durationArgument)
    .default(defaultMs, formatGoDurationMs(defaultMs));
}

/** A commander argument parser for booleans in any spelling of Go's strconv.ParseBool (`true`, `1`, `F`, …). */
export function boolArgument(value: string): boolean {
  try {
    return parseGoBool(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** A boolean flag as pflag's `BoolVar`: alone it means true, `--flag=false` (any ParseBool spelling) sets it. */
export function boolOption(name: string, description: string, defaultValue: boolean): Option {
  return new Option(`${name} [bool]`, description).argParser(boolArgument).default(defaultValue);
}

/** A commander argument parser for a port number (0 to 65535; 0 picks a free one). */
export function portArgument(value: string): number {
  if (!isPort(value)) throw new InvalidArgumentError('must be a port number from 0 to 65535');
  return Number(value);
}

const isPort = (text: string) => /^\d+$/.test(text) && Number(text) <= 65535;

/**
 * A commander argument parser for a Go-style listen address (`:8080`, `127.0.0.1:8000`, `[::1]:80`,
 * or `0` to disable); the address is returned as given.
 */
export function listenAddressArgument(value: string): string {
  const port = value.slice(value.lastIndexOf(':') + 1);
  if (value !== '0' && !(value.includes(':') && isPort(port)))
    throw new InvalidArgumentError('must be a listen address (host:port, :port, or 0 to disable)');
  return value;
}

/** A usage error (exit code 2) for a flag's bad value, in pflag's words: `error: invalid argument "V" for "--flag" flag: …`. */
export function invalidFlagValue(flag: string, value: string, detail: string): CommanderError {
  return new CommanderError(
    2,
    'commander.invalidArgument',
    `error: invalid argument ${JSON.stringify(value)} for "${flag}" flag: ${detail}`,
  );
}

/** Commander's words for a usage error, in pflag's and cobra's (what upstream's programs print). */
function upstreamWords(err: CommanderError): string {
  const message = err.message.replace(/^error: /, '');
  const bad = /^option '(\S+)[^']*' argument '([\s\S]*?)' is invalid\. ([\s\S]*)$/.exec(message);
  if (err.code === 'commander.invalidArgument' && bad)
    return invalidFlagValue(bad[1]!, bad[2]!, bad[3]!).message;
  const unknown = /^unknown option '([^']+)'/.exec(message)?.[1];
  if (err.code === 'commander.unknownOption' && unknown)
    return unknown.startsWith('--')
      ? `error: unknown flag: ${unknown.split('=')[0]}`
      : `error: unknown shorthand flag: '${unknown[1]}' in ${unknown}`;
  const missing = /^option '(\S+)[^']*' argument missing/.exec(message)?.[1];
  if (err.code === 'commander.optionMissingArgument' && missing)
    return `error: flag needs an argument: ${missing}`;
  const required = /^required option '--(\S+)[^']*' not specified/.exec(message)?.[1];
  if (err.code === 'commander.missingMandatoryOptionValue' && required)
    return `error: required flag(s) "${required}" not set`;
  return `error: ${message.split('\n')[0]}`;
}

/**
 * Parses argv (user arguments only) with a {@link programCommand}. `--help` prints the help and
 * throws a CommanderError with exit code 0; bad input throws a CommanderError with exit code 2 (our
 * programs' usage-error exit) whose message is one line in pflag's words, e.g. `error: invalid
 * argument "300000" for "--expectation-timeout" flag: time: missing unit in duration "300000"`,
 * `error: unknown flag: --foo`, `error: flag needs an argument: --kubeconfig`.
 */
export function parseCommandLine(cmd: Command, argv: string[]): void {
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError && err.exitCode !== 0)
      throw new CommanderError(2, err.code, upstreamWords(err));
    throw err;
  }
}

/**
 * Runs a program's option parsing: after `--help` (already printed) the program exits 0; on a usage
 * error it prints the error's one line on stderr and exits 2.
 */
export function optionsOrExit<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.exitCode === 0) process.exit(0);
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
}
