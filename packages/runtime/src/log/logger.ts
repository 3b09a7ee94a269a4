import { isoTime } from '@kruise/kube-compat/time';
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/**
 * The project's logger: pino JSON with constant messages and lower-case keys for the variable
 * data (`controller`, `key`, `node`, …). `LOG_LEVEL` sets the level (default `info`).
 */
export function createLogger(
  options: { name?: string; level?: string; destination?: DestinationStream } = {},
): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  return pino(
    {
      level,
      base: options.name ? { component: options.name } : {},
      // pino's isoTime, without Date#toISOString (see isoTime).
      timestamp: () => `,"time":"${isoTime()}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination,
  );
}

/** A logger that writes nothing (tests that do not look at logs). */
export const silentLogger: Logger = pino({ level: 'silent' });
