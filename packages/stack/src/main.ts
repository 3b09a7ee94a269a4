import { optionsOrExit } from '@kruise/runtime/cli/command-line';
import { parseStackFlags } from './flags.ts';

/**
 * `pnpm start`'s entry: the command line is checked before anything heavy is loaded, so a bad flag
 * or `--help` answers at once (as the programs answer: help on stdout, one `error: …` line and exit
 * 2); the stack itself is in stack.ts.
 */
optionsOrExit(() => parseStackFlags(process.argv.slice(2)));
await import('./stack.ts');
