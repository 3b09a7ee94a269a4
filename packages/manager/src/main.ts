import { connectOrExit, createLogger, optionsOrExit, shutdownOnSignals, startOrExit } from '@kruise/runtime';
import { startManager } from './app.ts';
import { parseOptions } from './options.ts';

/** `pnpm run manager -- [flags]`: kruise-manager. */
async function main(): Promise<void> {
  const options = optionsOrExit(() => parseOptions(process.argv.slice(2).filter((a) => a !== '--')));
  const log = createLogger({ name: 'kruise-manager' });
  const client = await connectOrExit(options.kubeconfig);
  let app: Awaited<ReturnType<typeof startManager>> | undefined;
  shutdownOnSignals(() => app?.manager.stop(), log);
  app = await startOrExit(log, () => startManager(client, options, log));
  log.info(
    { webhookport: app.webhookPort, metricsport: app.manager.metricsPort, gates: options.featureGates.all() },
    'kruise-manager started',
  );
}

await main();
