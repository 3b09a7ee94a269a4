import type { FlagValue } from './flag-values.ts';

/**
 * component-base's `--feature-gates` (pflag type `mapStringBool`), kept as the text given: `check`
 * is the program's own gate parser (the kit knows no gate set), and what it refuses is refused as
 * upstream's programs refuse it: `invalid argument "X=true" for "--feature-gates" flag:
 * unrecognized feature gate: X`.
 */
export function featureGatesValue(check: (text: string) => unknown): FlagValue<string> {
  return {
    type: 'mapStringBool',
    parse: (text) => {
      check(text);
      return text;
    },
  };
}
