import { invalidFlagValue } from './command-line.ts';

/**
 * The value of `--feature-gates` as the program's own `parse` reads it (the kit knows no gate
 * set), or a CommanderError (exit 2) in pflag's words with what `parse` refused, as upstream's
 * programs print it: `error: invalid argument "X=true" for "--feature-gates" flag: unrecognized
 * feature gate: X`.
 */
export function featureGatesFlag<T>(text: string | undefined, parse: (text: string | undefined) => T): T {
  try {
    return parse(text);
  } catch (err) {
    throw invalidFlagValue('--feature-gates', text ?? '', (err as Error).message);
  }
}
