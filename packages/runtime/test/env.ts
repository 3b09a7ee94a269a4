import { request } from 'node:https';
import { ControlPlane, type ControlPlaneOptions } from '@kruise/control-plane';
import { CertManager, type ConversionHandler, KubeClient, Resources, WebhookServer } from '../src/index.ts';

/** A control plane and an admin client for it. */
export async function startEnv(
  options: ControlPlaneOptions = {},
): Promise<{ cp: ControlPlane; client: KubeClient }> {
  const cp = await ControlPlane.start(options);
  return { cp, client: KubeClient.fromString(cp.kubeconfig()) };
}

export { eventually } from '../../../test/support/poll.ts';

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates a Service `namespace/name` (port 443) whose endpoint is this process's `port` (kube-controller-manager's part). */
export async function pointService(client: KubeClient, namespace: string, name: string, port: number) {
  await client.create(Resources.Service, {
    metadata: { name, namespace },
    spec: { ports: [{ port: 443 }] },
  });
  await client.create(Resources.Endpoints, {
    metadata: { name, namespace },
    subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }],
  });
}

/** POSTs raw bytes to a webhook server on this host, trusting `ca` for `servername`. */
export function postTo(
  target: { port: number; ca: string; servername: string },
  path: string,
  body: string,
  contentType = 'application/json',
): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path,
        method: 'POST',
        ca: target.ca,
        agent: false,
        servername: target.servername,
        headers: { 'content-type': contentType },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * kruise-manager's conversion webhook alone, as in a cluster: a WebhookServer with `handler` at
 * `/convert` behind kruise-system/kruise-webhook-service, its certificates managed (the CA bundle
 * into the `apps.kruise.io` CRDs with Webhook conversion). The kruise-system namespace must exist.
 */
export async function startConversionWebhook(
  client: KubeClient,
  handler: ConversionHandler,
  resyncMs?: number,
): Promise<{ server: WebhookServer; certs: CertManager; port: number; stop(): Promise<void> }> {
  const server = new WebhookServer();
  server.registerConversion('/convert', handler);
  const certs = new CertManager(client, {
    namespace: 'kruise-system',
    serviceName: 'kruise-webhook-service',
    crdGroup: 'apps.kruise.io',
    ...(resyncMs ? { resyncMs } : {}),
    onCertificates: (c) => server.setCertificate(c),
  });
  const port = await server.listen('127.0.0.1', 0, await certs.start());
  await pointService(client, 'kruise-system', 'kruise-webhook-service', port);
  return {
    server,
    certs,
    port,
    stop: async () => {
      await certs.stop();
      await server.close();
    },
  };
}
