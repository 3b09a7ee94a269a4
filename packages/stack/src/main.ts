import { parseStackFlags, USAGE, UsageError } from './flags.ts';

/**
 * `pnpm start`'s entry: the command line is checked before anything heavy is loaded, so a bad flag
 * or `--help` answers at once; the stack itself is in stack.ts.
 */
let help = false;
try {
  help = parseStackFlags(process.argv.slice(2)).help;
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  process.stderr.write(`error: ${err.message}\n${USAGE}\n`);
  process.exit(2);
}
if (help) {
  console.log(USAGE);
  process.exit(0);
}
await import('./stack.ts');
