import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type Key = webcrypto.CryptoKey;

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** A certificate and its private key, both PEM. */
export interface CertificatePair {
  cert: string;
  key: string;
}

async function keyPem(key: Key): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd();
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`;
}

/** A self-signed CA and a serving certificate for 127.0.0.1 / localhost (and `extraIPs`) signed by it. */
export async function createServingPki(
  commonName = 'kruise-control-plane-ca',
  dnsNames: string[] = ['localhost', 'kubernetes.default.svc'],
  extraIPs: string[] = [],
): Promise<{ ca: CertificatePair; serving: CertificatePair }> {
  const caKeys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 365 * 24 * 3600 * 1000);
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${commonName}`,
    notBefore,
    notAfter,
    keys: caKeys as any,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=kube-apiserver',
    issuer: caCert.subject,
    notBefore,
    notAfter,
    signingKey: caKeys.privateKey as any,
    publicKey: keys.publicKey as any,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: 'ip', value: '127.0.0.1' },
        ...extraIPs.map((value) => ({ type: 'ip' as const, value })),
        ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
      ]),
    ],
  });
  return {
    ca: { cert: caCert.toString('pem'), key: await keyPem(caKeys.privateKey) },
    serving: { cert: cert.toString('pem'), key: await keyPem(keys.privateKey) },
  };
}
