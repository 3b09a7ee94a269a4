import { connectOrExit, startOrExit } from '@kruise/runtime/cli/connect';
import { shutdownOnSignals } from '@kruise/runtime/cli/shutdown';
import { createLogger } from '@kruise/runtime/log/logger';
import { CommanderError } from 'commander';
import { startDaemon } from './app.ts';
import { parseDaemonOptions } from './options.ts';

/** `pnpm run daemon -- --node-name N [flags]`: kruise-daemon. */
async function main(): Promise<void> {
  let options: ReturnType<typeof parseDaemonOptions>;
  try {
    options = parseDaemonOptions(process.argv.slice(2).filter((a) => a !== '--'));
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) process.exit(0);
      if (err.code.startsWith('kruise.')) process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger({ name: 'kruise-daemon' }).child({ node: options.nodeName });
  const client = await connectOrExit(options.kubeconfig);
  let app: Awaited<ReturnType<typeof startDaemon>> | undefined;
  shutdownOnSignals(() => app?.stop(), log);
  app = await startOrExit(log, () => startDaemon(client, options, log));
  log.info({ port: app.port }, 'kruise-daemon started');
}

await main();
