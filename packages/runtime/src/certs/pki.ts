import { createPrivateKey, X509Certificate } from 'node:crypto';

/** The webhook certificates as kept in the Secret, PEM. */
export interface WebhookCertificates {
  caCert: string;
  caKey: string;
  cert: string;
  key: string;
}

/**
 * A new CA and serving certificate. The X.509 generator (@peculiar/x509) is loaded only here,
 * when certificates are made, so a process that finds valid ones in its Secret never loads it.
 */
export async function createWebhookCertificates(
  dnsNames: string[],
  caValidityMs: number,
  certValidityMs: number,
): Promise<WebhookCertificates> {
  const { createCertificateAuthority, createServingCertificate } = await import('./pki-generate.ts');
  const ca = await createCertificateAuthority(caValidityMs);
  const serving = await createServingCertificate(ca, dnsNames, certValidityMs);
  return { caCert: ca.cert, caKey: ca.key, cert: serving.cert, key: serving.key };
}

/**
 * Whether the certificates can serve `dnsNames` for at least `renewBeforeMs` more: both parse,
 * the serving certificate names every DNS name, was signed by the CA, neither expires soon, and
 * the keys parse.
 */
export async function certificatesUsable(
  certs: WebhookCertificates,
  dnsNames: string[],
  renewBeforeMs: number,
): Promise<boolean> {
  try {
    const ca = new X509Certificate(certs.caCert);
    const cert = new X509Certificate(certs.cert);
    const limit = Date.now() + renewBeforeMs;
    if (Date.parse(ca.validTo) <= limit || Date.parse(cert.validTo) <= limit) return false;
    if (!dnsNames.every((d) => cert.checkHost(d, { wildcards: false }) === d)) return false;
    if (!cert.verify(ca.publicKey)) return false;
    createPrivateKey(certs.key);
    createPrivateKey(certs.caKey);
    return true;
  } catch {
    return false;
  }
}

/** The serial number of a PEM certificate (to tell rotations apart). */
export function serialOf(certPem: string): string {
  return new X509Certificate(certPem).serialNumber;
}
