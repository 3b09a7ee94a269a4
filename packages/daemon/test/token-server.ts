import { createHash, sign, X509Certificate } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority } from '@kruise/runtime/certs/pki-generate';

/** What the token server saw: token requests by how they authenticated. */
export interface TokenRequests {
  anonymous: number;
  accepted: number;
  rejected: number;
}

/** A registry token server (Docker Hub's scheme): anonymous pulls allowed, wrong credentials refused. */
export interface TokenServer {
  realm: string;
  service: string;
  issuer: string;
  /** PEM of the certificate whose key signs the tokens (the registry's `rootcertbundle`). */
  certificate: string;
  requests: TokenRequests;
  stop(): Promise<void>;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** libtrust's key ID, which docker-registry matches a token's `kid` against: base32 of SHA-256(SPKI)[:30], in groups of 4. */
function libtrustKeyID(certificate: string): string {
  const spki = new X509Certificate(certificate).publicKey.export({ type: 'spki', format: 'der' });
  const bytes = createHash('sha256').update(spki).digest().subarray(0, 30);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let s = '';
  for (let i = 0; i + 5 <= bits.length; i += 5) s += alphabet[Number.parseInt(bits.slice(i, i + 5), 2)];
  return s.match(/.{1,4}/g)!.join(':');
}

/** A token request's credentials (basic auth, or the OAuth form containerd POSTs) and scope. */
async function readRequest(
  req: IncomingMessage,
): Promise<{ given: { user: string; password: string } | undefined; scope: string }> {
  const query = new URL(req.url ?? '/', 'http://x').searchParams;
  let form = new URLSearchParams();
  if (req.method === 'POST') {
    let body = '';
    for await (const chunk of req) body += chunk;
    form = new URLSearchParams(body);
  }
  const scope = query.get('scope') ?? form.get('scope') ?? '';
  const auth = req.headers.authorization;
  if (auth?.startsWith('Basic ')) {
    const pair = Buffer.from(auth.slice(6), 'base64').toString('utf8');
    const at = pair.indexOf(':');
    return { given: { user: pair.slice(0, at), password: pair.slice(at + 1) }, scope };
  }
  const user = form.get('username');
  return { given: user ? { user, password: form.get('password') ?? '' } : undefined, scope };
}

/**
 * A token server on loopback that grants tokens as Docker Hub does: pull to anonymous requests,
 * what the scope asks to requests with the right user and password (basic auth on GET, or
 * containerd's OAuth POST); wrong credentials get 401. Tokens are ES256 JWTs with libtrust's `kid`.
 */
export async function startTokenServer(user: string, password: string): Promise<TokenServer> {
  const { cert, key } = await createCertificateAuthority(3_600_000);
  const kid = libtrustKeyID(cert);
  const service = 'kruise-test-registry';
  const issuer = 'kruise-test-token-server';
  const requests: TokenRequests = { anonymous: 0, accepted: 0, rejected: 0 };
  const server: Server = createServer(async (req, res) => {
    const { given, scope } = await readRequest(req);
    if (given && (given.user !== user || given.password !== password)) {
      requests.rejected++;
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"details":"incorrect username or password"}');
      return;
    }
    if (given) requests.accepted++;
    else requests.anonymous++;
    // Anonymous: pull only; the right credentials: what the scope asks (the test pushes with them).
    const [, name, wanted = ''] = scope.split(':');
    const actions = wanted.split(',').filter((a) => a && (given || a === 'pull'));
    const now = Math.floor(Date.now() / 1000);
    const header = b64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid }));
    const claims = b64url(
      JSON.stringify({
        iss: issuer,
        sub: given?.user ?? '',
        aud: service,
        exp: now + 300,
        nbf: now - 10,
        iat: now,
        jti: `${now}-${Math.random()}`,
        access: name ? [{ type: 'repository', name, actions }] : [],
      }),
    );
    const signature = sign('sha256', Buffer.from(`${header}.${claims}`), { key, dsaEncoding: 'ieee-p1363' });
    const token = `${header}.${claims}.${b64url(signature)}`;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token, access_token: token, expires_in: 300 }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    realm: `http://127.0.0.1:${port}/token`,
    service,
    issuer,
    certificate: cert,
    requests,
    stop: () => new Promise((r) => server.close(() => r())),
  };
}
