import { CONVERSION_WEBHOOK } from '@kruise/api';
import { CertManager, isNotFound, type Manager, Resources, WebhookServer } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { trimmedNodes, trimmedPods } from '../informers.ts';
import type { ManagerOptions } from '../options.ts';
import { WEBHOOK_NAMES } from './configurations.ts';
import { kruiseConversions } from './conversion/index.ts';
import { apiDeletionLookups } from './deletion-protection/api-lookups.ts';
import { registerRoutes, webhookRoutes } from './paths.ts';
import { pubWebhookLookups } from './pod/pub-lookups.ts';
import { cachedSidecarSetLookups } from './pod/sidecarset/cached-lookups.ts';
import { apiPubLookups } from './podunavailablebudget/validating.ts';
import { apiSidecarSetLookups } from './sidecarset/api-lookups.ts';
import { apiStorageClasses } from './statefulset/storage-classes.ts';

/** The admission webhooks as the manager runs them: the server, its certificates and the port it bound. */
export interface Webhooks {
  server: WebhookServer;
  certs: CertManager;
  /** The port the server listens on (0 until started). */
  port(): number;
}

/**
 * Adds the webhook server (every admission route behind its feature gate, see `webhookRoutes`; the
 * CRD conversion webhook at `/convert`) and its self-managed certificates to the manager; they run
 * on every replica, leader or not, and `/readyz` waits for the server.
 */
export function addWebhooks(manager: Manager, flags: ManagerOptions): Webhooks {
  const { client, log } = manager;
  const server = new WebhookServer({ logger: log, metrics: manager.metrics });
  const certs = new CertManager(client, {
    namespace: flags.webhookServiceNamespace,
    serviceName: flags.webhookServiceName,
    secretName: WEBHOOK_NAMES.secret,
    mutatingConfigurations: [WEBHOOK_NAMES.mutating],
    validatingConfigurations: [WEBHOOK_NAMES.validating],
    crdGroup: 'apps.kruise.io',
    logger: log,
    onCertificates: (c) => server.setCertificate(c),
  });
  let port = 0;
  manager.add({
    name: 'webhook',
    start: async () => {
      const c = await certs.start();
      port = await server.listen(flags.webhookHost || '0.0.0.0', flags.webhookPort, c);
    },
    stop: async () => {
      await certs.stop();
      await server.close();
    },
  });
  manager.addReadyzCheck('webhook', () => {
    if (!server.isStarted) throw new Error('webhook server not started');
  });
  const pods = trimmedPods(manager);
  const nodes = trimmedNodes(manager);
  registerRoutes(
    server,
    webhookRoutes(flags.featureGates, {
      crr: {
        // The caches first (as upstream's cached client); the API when they do not have it yet.
        pod: async (ns, name) => {
          const cached = pods.get(`${ns}/${name}`);
          if (cached && (cached.status?.containerStatuses ?? []).every((s) => s.containerID)) return cached;
          try {
            return await client.get<Pod>(Resources.Pod, ns, name);
          } catch (err) {
            if (isNotFound(err)) return undefined;
            throw err;
          }
        },
        node: async (name) => nodes.get(name) ?? client.get(Resources.Node, undefined, name),
      },
      storageClasses: apiStorageClasses(client),
      sidecarSets: cachedSidecarSetLookups(manager, flags.webhookServiceNamespace),
      sidecarSetAdmission: apiSidecarSetLookups(client, flags.webhookServiceNamespace),
      deletion: apiDeletionLookups(client),
      pubAdmission: apiPubLookups(client),
      ...pubWebhookLookups(manager, flags),
    }),
  );
  const conversions = kruiseConversions();
  server.registerConversion(CONVERSION_WEBHOOK.path, (request) => conversions.review(request));
  return { server, certs, port: () => port };
}
