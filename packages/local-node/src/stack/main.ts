import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient } from '@kruise/runtime';
import { installKruiseApi, pointWebhookService, repoRoot as root, startManagerProcess } from './processes.ts';

/**
 * `pnpm start`: the local stack. This stage runs the embedded control plane with the Kruise CRDs
 * and kruise-manager as its own process (its webhooks reached through the Endpoints of
 * `kruise-webhook-service`), writes `<state-dir>/kubeconfig` (default `.kruise/`), and stops both on
 * Ctrl-C or SIGTERM. kruise-daemon, containerd and the local node join it as their issues land.
 */
const { values: flags } = parseArgs({
  options: {
    'state-dir': { type: 'string', default: join(root, '.kruise') },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(
    'usage: pnpm start [-- --state-dir DIR]\n  --state-dir DIR  kubeconfig and API server data (default .kruise/)',
  );
  process.exit(0);
}
const stateDir = flags['state-dir'];
const kubeconfig = join(stateDir, 'kubeconfig');
mkdirSync(stateDir, { recursive: true });
const cp = await ControlPlane.start({ dataDir: join(stateDir, 'control-plane') });
cp.writeKubeconfig(kubeconfig);
const client = KubeClient.fromString(cp.kubeconfig());
await installKruiseApi(client);
const { program: manager, webhookPort } = await startManagerProcess(kubeconfig);
manager.child.stdout!.resume();
await pointWebhookService(client, webhookPort);

console.log(
  `control plane ready at ${cp.url}; kruise-manager running (pid ${manager.child.pid}, webhooks on 127.0.0.1:${webhookPort})`,
);
console.log(`  export KUBECONFIG=${kubeconfig}`);
console.log('  kubectl get crd');
console.log('  kubectl get nodeimages,imagepulljobs,imagelistpulljobs,crr -A');
console.log('not yet part of the local stack: kruise-daemon, containerd and the local node');

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await manager.stop();
  await cp.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
