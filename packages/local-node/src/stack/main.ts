import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ControlPlane } from '@kruise/control-plane';
import { parse } from 'yaml';

/**
 * `pnpm start`: the local stack. This first stage runs the embedded control plane with the
 * Kruise CRDs applied and writes `.kruise/kubeconfig`; the manager, the daemon, containerd and
 * the local node join it as their issues land.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const kubeconfig = join(root, '.kruise/kubeconfig');
mkdirSync(dirname(kubeconfig), { recursive: true });
const cp = await ControlPlane.start({ dataDir: join(root, '.kruise/control-plane') });
const crdType = cp.registry.byResource('apiextensions.k8s.io', 'customresourcedefinitions')!;
const admin = { username: 'kubernetes-admin', groups: ['system:masters'] };
for (const file of readdirSync(join(root, 'deploy/crds')).sort()) {
  const crd = parse(readFileSync(join(root, 'deploy/crds', file), 'utf8'));
  if (!cp.store.get('apiextensions.k8s.io/customresourcedefinitions', '', crd.metadata.name)) {
    await cp.objects.create(crdType, '', crd, { user: admin });
  }
}
cp.writeKubeconfig(kubeconfig);
console.log(`control plane ready at ${cp.url}`);
console.log(`  export KUBECONFIG=${kubeconfig}`);
console.log('  kubectl get crd');
console.log('  kubectl get nodeimages,imagepulljobs,imagelistpulljobs,crr -A');
console.log('not yet part of the local stack: kruise-manager, kruise-daemon, containerd and the local node');
const stop = async () => {
  await cp.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
