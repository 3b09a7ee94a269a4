/** A reconcile error that retrying cannot fix: counted, logged, and the key is not requeued. */
export class TerminalError extends Error {
  override readonly cause: unknown;

  constructor(message: string, cause?: unknown) {
    super(message);
    this.name = 'TerminalError';
    this.cause = cause;
  }
}

/**
 * Whether a reconcile exception is what a Go reconciler would panic on: a programming fault of the
 * language (`TypeError` — e.g. reading a field of `undefined` —, `ReferenceError`, `RangeError`,
 * `SyntaxError`, `EvalError`, `URIError`) or a thrown value that is not an `Error`. Every other
 * exception stands for an error a Go reconciler returns.
 */
export function isPanic(err: unknown): boolean {
  return (
    !(err instanceof Error) ||
    err instanceof TypeError ||
    err instanceof ReferenceError ||
    err instanceof RangeError ||
    err instanceof SyntaxError ||
    err instanceof EvalError ||
    err instanceof URIError
  );
}
