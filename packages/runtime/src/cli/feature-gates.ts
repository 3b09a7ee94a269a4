import { CommanderError } from 'commander';

/**
 * The value of `--feature-gates` as the program's own `parse` reads it (the kit knows no gate
 * set), or a CommanderError (exit 2) that says what `parse` refused:
 * `error: invalid argument for '--feature-gates': unrecognized feature gate: X`.
 */
export function featureGatesFlag<T>(text: string | undefined, parse: (text: string | undefined) => T): T {
  try {
    return parse(text);
  } catch (err) {
    throw new CommanderError(
      2,
      'kruise.featureGates',
      `error: invalid argument for '--feature-gates': ${(err as Error).message}`,
    );
  }
}
