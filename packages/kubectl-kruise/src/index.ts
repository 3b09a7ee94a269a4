export type { CliIO } from './cli.ts';
export { runCli } from './cli.ts';
export type { Command, CommandContext } from './command.ts';
export { COMMANDS } from './commands/index.ts';
export type { WorkloadKind } from './kinds.ts';
export { WORKLOAD_KINDS } from './kinds.ts';
