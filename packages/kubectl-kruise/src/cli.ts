import { KubeClient } from '@kruise/runtime/kube/client';
import type { Command, CommandContext } from './command.ts';
import { COMMANDS } from './commands/index.ts';
import { ExitCode, formatError } from './errors.ts';
import { checkRequired, describeFlags, parseArgs } from './flags.ts';
import { connectionFlags, GLOBAL_FLAGS } from './global-flags.ts';
import { type Connection, resolveConnection } from './kubeconfig.ts';

/** Where a run writes and what it reads from its surroundings. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  now?: () => Date;
}

/** The name kubectl users type. */
export const PROGRAM = 'kubectl kruise';

/** The bool flags among the global ones: they take no value after them (`-h rollout …`). */
const GLOBAL_BOOLS = new Set(
  GLOBAL_FLAGS.filter((f) => f.type === 'bool').flatMap((f) => [
    `--${f.name}`,
    ...(f.short ? [`-${f.short}`] : []),
  ]),
);

/**
 * The words of `argv` that are not flags or flag values, with their positions, as cobra finds a
 * command among flags (its `stripFlags`): `--` ends the search; `--name value` and `-n value` take
 * the next argument as their value unless the flag is a known bool flag; `--name=value`, `-n=v`
 * and `-nv` are one argument each.
 */
function nonFlagWords(argv: readonly string[]): { word: string; at: number }[] {
  const words: { word: string; at: number }[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    const takesNext =
      !arg.includes('=') &&
      !GLOBAL_BOOLS.has(arg) &&
      ((arg.startsWith('--') && arg.length > 2) || (arg.startsWith('-') && arg.length === 2));
    if (takesNext) i++;
    else if (arg !== '' && !arg.startsWith('-')) words.push({ word: arg, at: i });
  }
  return words;
}

/**
 * The command named by the words of `argv` (the longest match; global flags such as `-n NS` or
 * `--kubeconfig F` may come before, between and after them, as cobra allows), and the arguments
 * left once its words are taken out.
 */
export function findCommand(argv: readonly string[]): { command?: Command; words: string[]; rest: string[] } {
  const found = nonFlagWords(argv);
  const words = found.map((w) => w.word);
  for (let n = words.length; n > 0; n--) {
    const path = words.slice(0, n).join(' ');
    const command = COMMANDS.find((c) => c.path === path);
    if (command) {
      const taken = new Set(found.slice(0, n).map((w) => w.at));
      return { command, words: words.slice(0, n), rest: argv.filter((_, i) => !taken.has(i)) };
    }
  }
  return { words, rest: [...argv] };
}

/** The commands under a group word (`rollout`), or every top-level one. */
function listing(prefix: string): string {
  const under = COMMANDS.filter((c) => (prefix ? c.path.startsWith(`${prefix} `) : true));
  const width = Math.max(...under.map((c) => c.path.length - (prefix ? prefix.length + 1 : 0)), 10) + 2;
  return under
    .map((c) => `  ${c.path.slice(prefix ? prefix.length + 1 : 0).padEnd(width)}${c.short}`)
    .join('\n');
}

/** The help text of a command. */
export function helpOf(command: Command): string {
  return `${command.long ?? command.short}\n\nOptions:\n${describeFlags(command.flags)}\nUsage:\n  ${command.usage}\n\nUse "${PROGRAM} options" for a list of global command-line options (applies to all commands).\n`;
}

/** The root help: the commands and how to call them. */
const rootHelp = () =>
  `${PROGRAM} controls OpenKruise workloads.\n\nAvailable Commands:\n${listing('')}\n\nUsage:\n  ${PROGRAM} [command] [options]\n\nUse "${PROGRAM} options" for a list of global command-line options (applies to all commands).\n`;

/**
 * Answers a command line that names no command, as kubectl answers one: the root help (exit 0)
 * for a bare invocation or `--help`; for flags without a command, their errors or the help on
 * stderr with exit 1 (as kubectl's command groups do), since nothing was carried out; for an
 * unknown word, cobra's `unknown command` (exit 1).
 */
function noCommand(argv: readonly string[], words: readonly string[], io: CliIO): number {
  const asksHelp = argv.includes('-h') || argv.includes('--help');
  const [group = '', sub] = words;
  if (group === 'options') {
    io.out(`The following options can be passed to any command:\n\n${describeFlags(GLOBAL_FLAGS)}`);
    return 0;
  }
  if (!group) {
    try {
      parseArgs(argv, GLOBAL_FLAGS);
    } catch (err) {
      io.err(formatError(err, PROGRAM));
      return 1;
    }
    if (argv.length === 0 || asksHelp) {
      io.out(rootHelp());
      return 0;
    }
    io.err(rootHelp());
    return 1;
  }
  const isGroup = COMMANDS.some((c) => c.path.startsWith(`${group} `));
  if (isGroup && sub === undefined) {
    const help = `Available Commands:\n${listing(group)}\n\nUsage:\n  ${PROGRAM} ${group} SUBCOMMAND [options]\n`;
    if (asksHelp) io.out(help);
    else io.err(help);
    return asksHelp ? 0 : 1;
  }
  io.err(
    isGroup
      ? `error: unknown command "${sub}"\nSee '${PROGRAM} ${group} -h' for help and examples\n`
      : `error: unknown command "${group}" for "kubectl-kruise"\nSee '${PROGRAM} --help' for usage.\n`,
  );
  return 1;
}

/**
 * Runs one `kubectl kruise` invocation and resolves with its exit code (0, or 1 on any error, as
 * kubectl). Nothing is thrown: every error is printed in kubectl's style.
 */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const { command, words, rest } = findCommand(argv);
  if (!command) return noCommand(argv, words, io);
  const commandPath = `${PROGRAM} ${command.path}`;
  let connection: Connection | undefined;
  let client: KubeClient | undefined;
  try {
    const specs = [...command.flags, ...GLOBAL_FLAGS];
    const parsed = parseArgs(rest, specs);
    if (parsed.flags.help === true) {
      io.out(helpOf(command));
      return 0;
    }
    checkRequired(parsed, specs);
    const connect = () => {
      connection ??= resolveConnection(connectionFlags(parsed.flags), io.env);
      return connection;
    };
    const ctx: CommandContext = {
      args: parsed.args,
      flags: parsed.flags,
      given: parsed.given,
      client: () => {
        client ??= new KubeClient(connect().access);
        return client;
      },
      namespace: () => connect().namespace,
      out: io.out,
      err: io.err,
      signal: io.signal ?? new AbortController().signal,
      now: io.now ?? (() => new Date()),
    };
    await command.run(ctx);
    return 0;
  } catch (err) {
    if (err instanceof ExitCode) return err.code;
    io.err(formatError(err, commandPath, connection?.access.server));
    return 1;
  } finally {
    client?.close();
  }
}
