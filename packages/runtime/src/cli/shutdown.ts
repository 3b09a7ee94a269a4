import type { Logger } from '../log/logger.ts';

/**
 * Stops a program once on its first SIGTERM or SIGINT, then exits (0, or 1 when stopping failed).
 * Call it before the program starts: a signal that arrives while it is still starting exits at once
 * (`stop` then finds nothing started). The handlers stay installed afterwards, so a second signal —
 * Ctrl-C reaches every process of the terminal's group while pnpm or the local stack also forwards
 * its own — is ignored instead of ending the process by the signal's default action halfway through
 * stopping.
 */
export function shutdownOnSignals(stop: () => Promise<void> | void, log?: Logger): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log?.info({ signal }, 'shutting down');
    Promise.resolve()
      .then(stop)
      .then(
        () => process.exit(0),
        (err) => {
          log?.error({ err: (err as Error)?.message ?? String(err) }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
