import { optionsOrExit } from '@kruise/runtime/cli/command-line';
import { connectOrExit, startOrExit } from '@kruise/runtime/cli/connect';
import { shutdownOnSignals } from '@kruise/runtime/cli/shutdown';
import { createLogger } from '@kruise/runtime/log/logger';
import { startDaemon } from './app.ts';
import { parseDaemonOptions } from './options.ts';

/** `pnpm run daemon -- --node-name N [flags]`: kruise-daemon. */
async function main(): Promise<void> {
  const options = optionsOrExit(() => parseDaemonOptions(process.argv.slice(2).filter((a) => a !== '--')));
  const log = createLogger({ name: 'kruise-daemon' }).child({ node: options.nodeName });
  const client = await connectOrExit(options.kubeconfig);
  let app: Awaited<ReturnType<typeof startDaemon>> | undefined;
  shutdownOnSignals(() => app?.stop(), log);
  app = await startOrExit(log, () => startDaemon(client, options, log));
  log.info({ port: app.port }, 'kruise-daemon started');
}

await main();
