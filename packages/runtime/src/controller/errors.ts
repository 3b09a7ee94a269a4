/** A reconcile error that retrying cannot fix: counted, logged, and the key is not requeued. */
export class TerminalError extends Error {
  override readonly cause: unknown;

  constructor(message: string, cause?: unknown) {
    super(message);
    this.name = 'TerminalError';
    this.cause = cause;
  }
}
