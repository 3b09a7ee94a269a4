import type { KubeClient } from '@kruise/runtime/kube/client';
import type { FlagSpec, FlagValues } from './flags.ts';

/** What a command's `run` gets: its arguments, its flags, the cluster and the output. */
export interface CommandContext {
  /** Positional arguments after the command's words. */
  args: string[];
  /** Every flag (the command's and the global ones) by long name. */
  flags: FlagValues;
  /** Long names of the flags given on the command line. */
  given: ReadonlySet<string>;
  /** The API client (connects on first use, from the kubeconfig and the global flags). */
  client(): KubeClient;
  /** `-n`, else the context's namespace, else `default`. */
  namespace(): string;
  /** Writes to standard output. */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
  /** Aborted on SIGINT (for `--watch` loops). */
  signal: AbortSignal;
  /** The clock (tests may pass their own). */
  now(): Date;
}

/**
 * One `kubectl kruise` command. A command lives in one file under commands/ and is one line of
 * the table in commands/index.ts.
 */
export interface Command {
  /** The words that select it, e.g. `scale` or `rollout status`. */
  path: string;
  /** One line for the command list. */
  short: string;
  /** The usage line(s) after `Usage:`, e.g. `kubectl kruise scale --replicas=COUNT TYPE NAME`. */
  usage: string;
  /** Longer help text and examples (optional). */
  long?: string;
  /** Its own flags (the global ones are added by the dispatcher). */
  flags: readonly FlagSpec[];
  run(ctx: CommandContext): Promise<void>;
}

/** kubectl's `--dry-run` flag (none, client, server). */
export const DRY_RUN_FLAG: FlagSpec = {
  name: 'dry-run',
  type: 'string',
  default: 'none',
  noValue: 'unchanged',
  usage:
    'Must be "none", "server", or "client". If client strategy, only print the object that would be sent, without sending it. If server strategy, submit server-side request without persisting the resource.',
};

/** kubectl's `-l/--selector` flag. */
export const SELECTOR_FLAG: FlagSpec = {
  name: 'selector',
  short: 'l',
  type: 'string',
  usage:
    "Selector (label query) to filter on, supports '=', '==', and '!='.(e.g. -l key1=value1,key2=value2).",
};

/** kubectl's `--all` flag. */
export const ALL_FLAG: FlagSpec = {
  name: 'all',
  type: 'bool',
  usage: 'Select all resources in the namespace of the specified resource types',
};

/** The dry-run strategy of `--dry-run`, with kubectl's validation and message. */
export function dryRunOf(ctx: CommandContext): 'none' | 'client' | 'server' {
  const value = String(ctx.flags['dry-run'] ?? 'none');
  if (value === 'none' || value === 'false' || value === '') return 'none';
  if (value === 'client' || value === 'true') return 'client';
  if (value === 'server') return 'server';
  throw new Error(`Invalid dry-run value (${value}). Must be "none", "server", or "client".`);
}

/** The suffix kubectl adds to an action's message under a dry run. */
export const dryRunSuffix = (strategy: 'none' | 'client' | 'server') =>
  strategy === 'client' ? ' (dry run)' : strategy === 'server' ? ' (server dry run)' : '';
