import { parseGoDurationMs } from '@kruise/kube-compat/go-duration';
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from 'kubernetes-types/admissionregistration/v1.js';
import type { Secret } from 'kubernetes-types/core/v1.js';
import { Informer } from '../informer/informer.ts';
import type { KubeClient, KubeObject } from '../kube/client.ts';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/errors.ts';
import { Resources } from '../kube/resources.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import { certificatesUsable, createWebhookCertificates, type WebhookCertificates } from './pki.ts';

const DAY = 24 * 3_600_000;

/** What the certificate manager reads of a CRD (a CRD's schemas can be large; the cache keeps this). */
const trimCrd = (crd: KubeObject): KubeObject => ({
  metadata: { name: crd.metadata?.name, resourceVersion: crd.metadata?.resourceVersion },
  spec: { group: crd.spec?.group, conversion: crd.spec?.conversion },
});

/** Where the webhook certificates live and who gets their CA bundle. */
export interface CertManagerOptions {
  namespace: string;
  serviceName: string;
  secretName?: string;
  mutatingConfigurations?: string[];
  validatingConfigurations?: string[];
  /**
   * CRDs of this API group with a Webhook conversion strategy get the bundle too, and this
   * manager's Service (unless they name a URL). They are watched, so a CRD applied again without
   * them gets them back at once.
   */
  crdGroup?: string;
  caValidityMs?: number;
  certValidityMs?: number;
  /** Renew this long before expiry (default `CERTS_RENEW_BEFORE`, else 6 months). */
  renewBeforeMs?: number;
  /** How often to check (default 1 min). */
  resyncMs?: number;
  logger?: Logger;
  /** Called whenever the serving certificate changes. */
  onCertificates?: (certs: WebhookCertificates) => void;
}

/**
 * Keeps a self-signed CA and the webhook's serving certificate in a Secret (`ca-cert.pem`,
 * `ca-key.pem`, `tls.crt`, `tls.key`, plus `cert.pem`/`key.pem` as upstream), renews them before
 * they expire, and writes the CA into the webhook configurations and into the conversion webhook
 * of the group's multi-version CRDs. Replicas converge: whoever writes the Secret first wins and
 * the others adopt its certificates.
 */
export class CertManager {
  private readonly client: KubeClient;
  private readonly o: Required<Omit<CertManagerOptions, 'logger' | 'onCertificates' | 'crdGroup'>> &
    Pick<CertManagerOptions, 'onCertificates' | 'crdGroup'>;
  private readonly log: Logger;
  private current: WebhookCertificates | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  /** The CRDs (trimmed), while started with a `crdGroup`. */
  private crds: Informer | undefined;

  constructor(client: KubeClient, options: CertManagerOptions) {
    this.client = client;
    const renewEnv = process.env.CERTS_RENEW_BEFORE;
    this.o = {
      secretName: 'kruise-webhook-certs',
      mutatingConfigurations: [],
      validatingConfigurations: [],
      caValidityMs: 10 * 365 * DAY,
      certValidityMs: 10 * 365 * DAY,
      renewBeforeMs: renewEnv ? parseGoDurationMs(renewEnv) : 180 * DAY,
      resyncMs: 60_000,
      ...options,
    };
    this.log = (options.logger ?? silentLogger).child({
      secret: `${options.namespace}/${this.o.secretName}`,
    });
  }

  /** DNS names the serving certificate carries. */
  get dnsNames(): string[] {
    const { serviceName: s, namespace: n } = this.o;
    return [`${s}.${n}.svc`, `${s}.${n}.svc.cluster.local`, `${s}.${n}`, s];
  }

  /** The certificates in use. */
  get certificates(): WebhookCertificates | undefined {
    return this.current;
  }

  /** Ensures usable certificates and CA bundles now, then re-checks every `resyncMs` and on every CRD change. */
  async start(): Promise<WebhookCertificates> {
    if (this.o.crdGroup) {
      const crds = new Informer(this.client, {
        resource: Resources.CustomResourceDefinition,
        transform: trimCrd,
        logger: this.log,
      });
      const changed = (crd: KubeObject) => {
        if (!this.current) return;
        const caBundle = Buffer.from(this.current.caCert).toString('base64');
        this.running = this.running
          .then(() => this.injectConversionBundleInto(crd, caBundle))
          .catch((err) =>
            this.log.warn({ err: (err as Error).message }, 'conversion caBundle update failed'),
          );
      };
      crds.addEventHandler({ add: changed, update: (_old, crd) => changed(crd) });
      crds.start();
      await crds.waitForSync();
      this.crds = crds;
    }
    const certs = await this.sync();
    this.timer = setInterval(() => {
      // one pass at a time, after any CRD update in flight
      this.running = this.running
        .then(() => this.sync())
        .catch((err) => this.log.warn({ err: (err as Error).message }, 'certificate sync failed'));
    }, this.o.resyncMs);
    this.timer.unref();
    return certs;
  }

  /** Stops the periodic check and the CRD watch. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.crds?.stop();
    this.crds = undefined;
    await this.running;
  }

  /** One pass: certificates in the Secret, then the CA bundle in every configuration. */
  async sync(): Promise<WebhookCertificates> {
    const certs = await this.ensureSecret();
    if (!this.current || this.current.cert !== certs.cert || this.current.key !== certs.key) {
      this.current = certs;
      this.o.onCertificates?.(certs);
      this.log.info({}, 'serving certificate loaded');
    }
    await this.injectCaBundle(Buffer.from(certs.caCert).toString('base64'));
    return certs;
  }

  private fromSecret(secret: Secret | undefined): WebhookCertificates | undefined {
    const d = secret?.data ?? {};
    const read = (k: string) => {
      const v = d[k];
      return v ? Buffer.from(v, 'base64').toString('utf8') : '';
    };
    const certs = {
      caCert: read('ca-cert.pem'),
      caKey: read('ca-key.pem'),
      cert: read('tls.crt') || read('cert.pem'),
      key: read('tls.key') || read('key.pem'),
    };
    return certs.caCert && certs.caKey && certs.cert && certs.key ? certs : undefined;
  }

  private async ensureSecret(): Promise<WebhookCertificates> {
    for (let attempt = 0; attempt < 10; attempt++) {
      let secret: Secret | undefined;
      try {
        secret = await this.client.get<Secret>(Resources.Secret, this.o.namespace, this.o.secretName);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      const existing = this.fromSecret(secret);
      if (existing && (await certificatesUsable(existing, this.dnsNames, this.o.renewBeforeMs)))
        return existing;
      const fresh = await createWebhookCertificates(
        this.dnsNames,
        this.o.caValidityMs,
        this.o.certValidityMs,
      );
      const b64 = (s: string) => Buffer.from(s).toString('base64');
      const data = {
        'ca-cert.pem': b64(fresh.caCert),
        'ca-key.pem': b64(fresh.caKey),
        'tls.crt': b64(fresh.cert),
        'tls.key': b64(fresh.key),
        'cert.pem': b64(fresh.cert),
        'key.pem': b64(fresh.key),
      };
      try {
        if (secret) await this.client.update(Resources.Secret, { ...secret, data });
        else
          await this.client.create(Resources.Secret, {
            metadata: { name: this.o.secretName, namespace: this.o.namespace },
            type: 'Opaque',
            data,
          });
        this.log.info({ reason: existing ? 'renewal' : 'missing' }, 'wrote new webhook certificates');
        return fresh;
      } catch (err) {
        if (!isConflict(err) && !isAlreadyExists(err)) throw err;
        // another replica wrote first: read again and adopt its certificates
      }
    }
    throw new Error('could not settle the webhook certificates after 10 attempts');
  }

  private async injectCaBundle(caBundle: string): Promise<void> {
    const configs = [
      ...this.o.mutatingConfigurations.map((name) => [Resources.MutatingWebhookConfiguration, name] as const),
      ...this.o.validatingConfigurations.map(
        (name) => [Resources.ValidatingWebhookConfiguration, name] as const,
      ),
    ];
    for (const [resource, name] of configs) {
      for (let attempt = 0; attempt < 5; attempt++) {
        let config: MutatingWebhookConfiguration | ValidatingWebhookConfiguration;
        try {
          config = await this.client.get<MutatingWebhookConfiguration>(resource, undefined, name);
        } catch (err) {
          if (isNotFound(err)) break;
          throw err;
        }
        const webhooks = (config.webhooks ?? []).map((w) => ({
          ...w,
          clientConfig: { ...w.clientConfig, caBundle },
        }));
        if (JSON.stringify(webhooks) === JSON.stringify(config.webhooks ?? [])) break;
        try {
          await this.client.update(resource, { ...config, webhooks });
          break;
        } catch (err) {
          if (!isConflict(err)) throw err;
        }
      }
    }
    if (this.o.crdGroup) await this.injectConversionBundle(caBundle);
  }

  private async injectConversionBundle(caBundle: string): Promise<void> {
    const crds = this.crds?.list() ?? (await this.client.listAll(Resources.CustomResourceDefinition)).items;
    for (const crd of crds) await this.injectConversionBundleInto(crd, caBundle);
  }

  /**
   * Points a Webhook-conversion CRD of the group at this webhook: the CA bundle, and the Service
   * (namespace and name; path and port stay the CRD's) unless it names a URL — as upstream's
   * webhook controller rewrites the conversion client config.
   */
  private async injectConversionBundleInto(crd: KubeObject, caBundle: string): Promise<void> {
    if (crd.spec?.group !== this.o.crdGroup || crd.spec?.conversion?.strategy !== 'Webhook') return;
    const clientConfig = crd.spec.conversion.webhook?.clientConfig ?? {};
    const service = { namespace: this.o.namespace, name: this.o.serviceName };
    const serviceRight =
      clientConfig.url ||
      (clientConfig.service?.namespace === service.namespace && clientConfig.service?.name === service.name);
    if (clientConfig.caBundle === caBundle && serviceRight) return;
    await this.client.mergePatch(Resources.CustomResourceDefinition, undefined, crd.metadata?.name, {
      spec: {
        conversion: { webhook: { clientConfig: { caBundle, ...(clientConfig.url ? {} : { service }) } } },
      },
    });
    this.log.info({ crd: crd.metadata?.name }, 'conversion webhook caBundle updated');
  }
}
