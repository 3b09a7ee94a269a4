import { connectOrExit, createLogger, shutdownOnSignals, startOrExit } from '@kruise/runtime';
import { CommanderError } from 'commander';
import { startManager } from './app.ts';
import { parseOptions } from './options.ts';

/** `pnpm run manager -- [flags]`: kruise-manager. */
async function main(): Promise<void> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(process.argv.slice(2).filter((a) => a !== '--'));
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) process.exit(0);
      if (!err.message.startsWith('error:')) process.stderr.write(`${err.message}\n`);
      else if (err.code === 'kruise.featureGates') process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger({ name: 'kruise-manager' });
  const client = await connectOrExit(options.kubeconfig);
  let app: Awaited<ReturnType<typeof startManager>> | undefined;
  shutdownOnSignals(() => app?.manager.stop(), log);
  app = await startOrExit(log, () => startManager(client, options, log));
  log.info({ webhookport: app.webhookPort, gates: options.featureGates.all() }, 'kruise-manager started');
}

await main();
