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

/** The command whose words lead `argv` (the longest match), and the arguments left. */
export function findCommand(argv: readonly string[]): { command?: Command; words: string[]; rest: string[] } {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-')) break;
    words.push(arg);
  }
  for (let n = words.length; n > 0; n--) {
    const path = words.slice(0, n).join(' ');
    const command = COMMANDS.find((c) => c.path === path);
    if (command) {
      const rest = [...argv];
      for (const word of words.slice(0, n)) rest.splice(rest.indexOf(word), 1);
      return { command, words: words.slice(0, n), rest };
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

/** Answers a command line that names no command: the lists of commands, or kubectl's error. */
function noCommand(argv: readonly string[], words: readonly string[], io: CliIO): number {
  const asksHelp = argv.includes('-h') || argv.includes('--help');
  const [group = '', sub] = words;
  if (group === 'options') {
    io.out(`The following options can be passed to any command:\n\n${describeFlags(GLOBAL_FLAGS)}`);
    return 0;
  }
  if (!group) {
    io.out(
      `${PROGRAM} controls OpenKruise workloads.\n\nAvailable Commands:\n${listing('')}\n\nUsage:\n  ${PROGRAM} [command] [options]\n`,
    );
    return 0;
  }
  const isGroup = COMMANDS.some((c) => c.path.startsWith(`${group} `));
  if (isGroup && sub === undefined) {
    io.out(`Available Commands:\n${listing(group)}\n\nUsage:\n  ${PROGRAM} ${group} SUBCOMMAND [options]\n`);
    return asksHelp ? 0 : 1;
  }
  io.err(
    isGroup
      ? `error: unknown command "${sub}"\nSee '${PROGRAM} ${group} -h' for help and examples\n`
      : `error: unknown command "${group}" for "${PROGRAM}"\n`,
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
