import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

async function pem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd()}\n-----END PRIVATE KEY-----\n`;
}

async function importKey(pemText: string): Promise<webcrypto.CryptoKey> {
  const b64 = pemText.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  return webcrypto.subtle.importKey(
    'pkcs8',
    Buffer.from(b64, 'base64'),
    { name: 'ECDSA', namedCurve: 'P-256' },
    true,
    ['sign'],
  );
}

const serial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

/** A new self-signed CA (CN `webhook-cert-ca`, ECDSA P-256, SHA-256). */
export async function createCertificateAuthority(validityMs: number): Promise<{ cert: string; key: string }> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=webhook-cert-ca',
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + validityMs),
    keys: keys as any,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
    ],
  });
  return { cert: cert.toString('pem'), key: await pem(keys.privateKey) };
}

/** A serving certificate for `dnsNames`, signed by the CA. */
export async function createServingCertificate(
  ca: { cert: string; key: string },
  dnsNames: string[],
  validityMs: number,
): Promise<{ cert: string; key: string }> {
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await importKey(ca.key);
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${dnsNames[0]}`,
    issuer: caCert.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + validityMs),
    signingKey: caKey as any,
    publicKey: keys.publicKey as any,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(dnsNames.map((value) => ({ type: 'dns' as const, value }))),
    ],
  });
  return { cert: cert.toString('pem'), key: await pem(keys.privateKey) };
}
