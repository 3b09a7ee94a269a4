import { KubeApiError } from '@kruise/runtime/kube/errors';

/** A bad command line: kubectl prints it followed by "See '<command> --help' for usage." */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** An error kubectl prints as it is, without the `error: ` prefix (e.g. "Error in configuration: ..."). */
export class PlainError extends Error {
  override name = 'PlainError';
}

/** Ends a run with this exit code and nothing printed (what `exec` passes on from kubectl). */
export class ExitCode extends Error {
  override name = 'ExitCode';
  readonly code: number;
  constructor(code: number) {
    super(`exit code ${code}`);
    this.code = code;
  }
}

/** Node's network error codes that mean the API server could not be reached. */
const REFUSED = new Set(['ECONNREFUSED']);

/**
 * The text kubectl prints for an error (its `cmdutil.CheckErr`): API Status errors as
 * `Error from server (Reason): message`, an unreachable server as "The connection to the server ...
 * was refused", everything else as `error: message`. `commandPath` is for the usage hint.
 */
export function formatError(err: unknown, commandPath: string, server?: string): string {
  if (err instanceof UsageError) return `error: ${err.message}\nSee '${commandPath} --help' for usage.\n`;
  if (err instanceof PlainError) return `${err.message}\n`;
  if (err instanceof KubeApiError) {
    const reason = err.reason ? ` (${err.reason})` : '';
    return `Error from server${reason}: ${err.message}\n`;
  }
  const code = (err as { code?: string } | null)?.code;
  if (code && REFUSED.has(code) && server) {
    const host = server.replace(/^https?:\/\//, '');
    return `The connection to the server ${host} was refused - did you specify the right host or port?\n`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return message.startsWith('error: ') ? `${message}\n` : `error: ${message}\n`;
}
