import { type FeatureGates, parseFeatureGates } from '@kruise/api';
import { CommanderError } from 'commander';

/**
 * The value of `--feature-gates` (kruise-manager and kruise-daemon), or a CommanderError (exit 2)
 * that says what is wrong: `error: invalid argument for '--feature-gates': unrecognized feature gate: X`.
 */
export function featureGatesFlag(text: string | undefined): FeatureGates {
  try {
    return parseFeatureGates(text);
  } catch (err) {
    throw new CommanderError(
      2,
      'kruise.featureGates',
      `error: invalid argument for '--feature-gates': ${(err as Error).message}`,
    );
  }
}
