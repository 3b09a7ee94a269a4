import { runCli } from './cli.ts';

/** `kubectl-kruise`'s entry: kubectl runs it with the words after `kubectl kruise`. */
const abort = new AbortController();
process.once('SIGINT', () => abort.abort());
const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  signal: abort.signal,
});
process.exitCode = code;
