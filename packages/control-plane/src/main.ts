import { parseArgs } from 'node:util';
import { ControlPlane } from './server.ts';

/** `pnpm run control-plane -- --kubeconfig FILE [--port N] [--data-dir DIR]` */
async function main(): Promise<void> {
  let values: { kubeconfig?: string; port?: string; 'data-dir'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      // `pnpm run control-plane -- --flag` passes the `--` on.
      args: process.argv.slice(2).filter((a) => a !== '--'),
      options: {
        kubeconfig: { type: 'string' },
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(
      'Usage: control-plane --kubeconfig FILE [--port N] [--data-dir DIR]\n\nServes an embedded Kubernetes API on https://127.0.0.1.',
    );
    return;
  }
  if (!values.kubeconfig) {
    console.error('error: --kubeconfig FILE is required');
    process.exit(2);
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`error: --port must be a port number, got "${values.port}"`);
    process.exit(2);
  }
  // Installed before the start and kept: a second signal (Ctrl-C reaches the whole process group,
  // and pnpm forwards its own) must not end the process by default while it stops.
  let cp: ControlPlane | undefined;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await cp?.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  cp = await ControlPlane.start({ port, dataDir: values['data-dir'] });
  cp.writeKubeconfig(values.kubeconfig);
  console.log(`control plane ready at ${cp.url} (kubeconfig ${values.kubeconfig})`);
}

await main();
