import { CriClient } from '@kruise/cri/client';
import { connectOrExit, createLogger, optionsOrExit, shutdownOnSignals } from '@kruise/runtime';
import { LocalNode } from './local-node.ts';
import { parseLocalNodeOptions } from './options.ts';

/**
 * `pnpm run local-node -- --node-name N --kubeconfig F --runtime-endpoint unix:///…`: one local
 * node (kubelet's part) on a CRI runtime. Prints a JSON line `local node ready` once its Node is
 * Ready; stops on SIGTERM/SIGINT, leaving running containers as they are.
 */
async function main(): Promise<void> {
  const { kubeconfig, runtimeEndpoint, ...options } = optionsOrExit(() =>
    parseLocalNodeOptions(process.argv.slice(2).filter((a) => a !== '--')),
  );
  const client = await connectOrExit(kubeconfig);
  const log = createLogger({ name: 'local-node' });
  const cri = new CriClient(runtimeEndpoint);
  const node = new LocalNode({ client, cri, logger: log, ...options });
  let started = false;
  shutdownOnSignals(async () => {
    if (started) await node.stop();
    cri.close();
  }, log);
  try {
    await node.start();
    started = true;
  } catch (err) {
    process.stderr.write(`local node could not start: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

await main();
