/** The answer of every kind of expectations: act now, or wait (the controller requeues after `retryAfterMs`). */
export type ExpectationCheck =
  | { satisfied: true }
  | {
      satisfied: false;
      /** When the oldest pending expectation will time out; requeue then at the latest. */
      retryAfterMs: number;
      /** What is still awaited, for the log. */
      pending: Record<string, unknown>;
    };

/** The check of nothing pending. */
export const SATISFIED: ExpectationCheck = { satisfied: true };
