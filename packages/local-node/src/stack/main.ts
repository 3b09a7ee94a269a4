import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ControlPlane } from '@kruise/control-plane';
import { parseFeatureGates, webhookConfigurations } from '@kruise/manager';
import { KubeClient, Resources } from '@kruise/runtime';
import { parse } from 'yaml';

/**
 * `pnpm start`: the local stack. This stage runs the embedded control plane with the Kruise CRDs
 * and kruise-manager as its own process (its webhooks reached through the Endpoints of
 * `kruise-webhook-service`), writes `<state-dir>/kubeconfig` (default `.kruise/`), and stops both on
 * Ctrl-C or SIGTERM. kruise-daemon, containerd and the local node join it as their issues land.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
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
const ensure = async (create: () => Promise<unknown>) => {
  try {
    await create();
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
  }
};
for (const file of readdirSync(join(root, 'deploy/crds')).sort()) {
  const crd = parse(readFileSync(join(root, 'deploy/crds', file), 'utf8'));
  await ensure(() =>
    client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd }),
  );
}
for (const ns of ['kruise-system', 'kruise-daemon-config'])
  await ensure(() => client.create(Resources.Namespace, { metadata: { name: ns } }));
const gates = 'ImagePullJobGate=true';
const configs = webhookConfigurations(parseFeatureGates(gates));
await ensure(() => client.create(Resources.MutatingWebhookConfiguration, configs.mutating));
await ensure(() => client.create(Resources.ValidatingWebhookConfiguration, configs.validating));
await ensure(() =>
  client.create(Resources.Service, {
    metadata: { name: 'kruise-webhook-service', namespace: 'kruise-system' },
    spec: { ports: [{ port: 443, targetPort: 9876 }] },
  }),
);

const manager: ChildProcess = spawn(
  process.execPath,
  [
    '--conditions=source',
    join(root, 'packages/manager/src/main.ts'),
    `--kubeconfig=${kubeconfig}`,
    '--metrics-addr=127.0.0.1:0',
    '--health-probe-addr=127.0.0.1:0',
    '--webhook-host=127.0.0.1',
    '--webhook-port=0',
    '--enable-leader-election=false',
    `--feature-gates=${gates}`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const webhookPort = await new Promise<number>((resolve, reject) => {
  let out = '';
  manager.stdout!.on('data', (c) => {
    out += c;
    const m = /"webhookport":(\d+)/.exec(out);
    if (m) resolve(Number(m[1]));
  });
  manager.once('exit', (code) => reject(new Error(`kruise-manager exited with ${code}`)));
});
manager.stdout!.resume();
const endpoints = {
  metadata: { name: 'kruise-webhook-service', namespace: 'kruise-system' },
  subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: webhookPort }] }],
};
try {
  await client.create(Resources.Endpoints, endpoints);
} catch {
  const current = await client.get(Resources.Endpoints, 'kruise-system', 'kruise-webhook-service');
  await client.update(Resources.Endpoints, { ...current, subsets: endpoints.subsets });
}

console.log(
  `control plane ready at ${cp.url}; kruise-manager running (pid ${manager.pid}, webhooks on 127.0.0.1:${webhookPort})`,
);
console.log(`  export KUBECONFIG=${kubeconfig}`);
console.log('  kubectl get crd');
console.log('  kubectl get nodeimages,imagepulljobs,imagelistpulljobs,crr -A');
console.log('not yet part of the local stack: kruise-daemon, containerd and the local node');

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  if (manager.exitCode === null) {
    const exited = new Promise((r) => manager.once('exit', r));
    manager.kill('SIGTERM');
    await exited;
  }
  await cp.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
