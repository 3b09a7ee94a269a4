import { Agent, request } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { figure, sideBySide } from './figures.ts';

const OBJECTS = 200;
const IN_FLIGHT = 8;
const ROUNDS = 3;

/** A Deployment as `kubectl apply --server-side` or Helm sends it. */
function manifest(i: number, replicas: number): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `ssa-${i}`, labels: { app: `ssa-${i}`, round: String(replicas) } },
    spec: {
      replicas,
      selector: { matchLabels: { app: `ssa-${i}` } },
      template: {
        metadata: { labels: { app: `ssa-${i}` } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.27',
              ports: [{ containerPort: 80 }],
              env: [{ name: 'MODE', value: 'bench' }],
              resources: { requests: { cpu: '10m', memory: '16Mi' } },
            },
          ],
        },
      },
    },
  };
}

/**
 * Server-side apply cost per object against a merge patch making the same change (replicas and a
 * label of 200 Deployments), measured as the server's CPU per request in the same run, side by side.
 */
export async function benchApplyCost(kubeconfigPath: string, serverCpuSeconds: () => number): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const server = new URL(kc.getCurrentCluster()!.server);
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const base: Record<string, any> = { agent, host: server.hostname, port: server.port };
  await kc.applyToHTTPSOptions(base);
  const send = (method: string, path: string, contentType: string, body: unknown) =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        { ...base, method, path, headers: { ...base.headers, 'content-type': contentType } },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode! < 300 ? resolve() : reject(new Error(`${method} ${path}: ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  const path = (i: number) => `/apis/apps/v1/namespaces/default/deployments/ssa-${i}`;
  const each = async (fn: (i: number) => Promise<void>) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < OBJECTS) await fn(next++);
      }),
    );
  };
  const apply = (i: number, replicas: number) =>
    send(
      'PATCH',
      `${path(i)}?fieldManager=bench&force=true`,
      'application/apply-patch+yaml',
      manifest(i, replicas),
    );
  await each((i) => apply(i, 1));
  let replicas = 1;
  const perObject = async (fn: (i: number, replicas: number) => Promise<void>) => {
    replicas++;
    const before = serverCpuSeconds();
    await each((i) => fn(i, replicas));
    return ((serverCpuSeconds() - before) / OBJECTS) * 1e6;
  };
  const cost = await sideBySide(ROUNDS, {
    apply: () => perObject(apply),
    'merge patch': () =>
      perObject((i, r) =>
        send('PATCH', path(i), 'application/merge-patch+json', {
          metadata: { labels: { round: String(r) } },
          spec: { replicas: r },
        }),
      ),
  });
  agent.destroy();
  figure('control-plane.apply-cpu-per-object', cost.apply, {
    label: 'server CPU per server-side apply of a Deployment',
    unit: 'µs',
    digits: 0,
  });
  figure('control-plane.merge-patch-cpu-per-object', cost['merge patch'], {
    label: 'server CPU per merge patch of the same change',
    unit: 'µs',
    digits: 0,
  });
  figure(
    'control-plane.apply-vs-merge-patch',
    cost.apply.map((a, i) => a / cost['merge patch'][i]!),
    { label: 'server-side apply cost per object / merge patch (same rounds)', unit: 'x', digits: 2 },
  );
}
