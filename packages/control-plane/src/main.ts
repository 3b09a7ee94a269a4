import { parseArgs } from 'node:util';
import { parseDuration } from './protobuf/well-known.ts';
import { ControlPlane } from './server.ts';

const USAGE =
  'Usage: control-plane --kubeconfig FILE [--port N] [--data-dir DIR] [--node-monitor-grace-period DURATION] [--extra-bind-address IP]...';

/**
 * `pnpm run control-plane -- --kubeconfig FILE [--port N] [--data-dir DIR] [--node-monitor-grace-period D]
 * [--extra-bind-address IP]...` (a pod bridge's gateway, where pods outside the host network reach it)
 */
async function main(): Promise<void> {
  let values: {
    kubeconfig?: string;
    port?: string;
    'data-dir'?: string;
    'node-monitor-grace-period'?: string;
    'extra-bind-address'?: string[];
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      // `pnpm run control-plane -- --flag` passes the `--` on.
      args: process.argv.slice(2).filter((a) => a !== '--'),
      options: {
        kubeconfig: { type: 'string' },
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        // kube-controller-manager's flag: how long a node may go without a heartbeat (default 40s).
        'node-monitor-grace-period': { type: 'string' },
        'extra-bind-address': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(`${USAGE}\n\nServes an embedded Kubernetes API on https://127.0.0.1.`);
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
  const grace = values['node-monitor-grace-period'];
  const graceNs = grace === undefined ? undefined : parseDuration(grace);
  if (grace !== undefined && (graceNs === undefined || graceNs <= 0n)) {
    console.error(
      `error: --node-monitor-grace-period must be a positive duration (e.g. 40s), got "${grace}"`,
    );
    process.exit(2);
  }
  const extra = values['extra-bind-address'] ?? [];
  const wildcard = extra.find((a) => !/^\d+\.\d+\.\d+\.\d+$/.test(a) || a === '0.0.0.0');
  if (wildcard !== undefined) {
    console.error(
      `error: --extra-bind-address must be an IPv4 address of this machine (never 0.0.0.0), got "${wildcard}"`,
    );
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
  cp = await ControlPlane.start({
    port,
    dataDir: values['data-dir'],
    extraBindAddresses: extra,
    ...(graceNs === undefined ? {} : { nodeMonitorGracePeriodMs: Number(graceNs / 1_000_000n) }),
  });
  cp.writeKubeconfig(values.kubeconfig);
  console.log(`control plane ready at ${cp.url} (kubeconfig ${values.kubeconfig})`);
}

await main();
