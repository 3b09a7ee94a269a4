import { parentPort, workerData } from 'node:worker_threads';
import { KubeClient, Resources, withConnectionReuse } from '@kruise/runtime';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

/**
 * A client-node writer thread: connects, says `ready`, and on `go` creates `count` ConfigMaps
 * with `concurrency` in flight, then reports how long that took.
 */
const { kubeconfigPath, prefix, count, concurrency, viaRuntime } = workerData as {
  kubeconfigPath: string;
  prefix: string;
  count: number;
  concurrency: number;
  viaRuntime?: boolean;
};
const kc = new KubeConfig();
kc.loadFromFile(kubeconfigPath);
const core = withConnectionReuse(kc).makeApiClient(CoreV1Api);
const ours = viaRuntime ? KubeClient.load(kubeconfigPath) : undefined;
const create = (name: string, i: number) =>
  ours
    ? ours.create(Resources.ConfigMap, { metadata: { name, namespace: 'default' }, data: { i: String(i) } })
    : core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name }, data: { i: String(i) } },
      });
await core.listNamespace();
parentPort!.postMessage('ready');
await new Promise((resolve) => parentPort!.once('message', resolve));
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++;
      await create(`${prefix}-${i}`, i);
    }
  }),
);
parentPort!.postMessage({ ms: performance.now() - started });
